/** The audio containers the gateway measures (`probeAudio`). */
export type AudioFormat = 'mp3' | 'mpga' | 'aac' | 'wav' | 'ogg' | 'flac' | 'webm' | 'm4a' | 'mp4';
