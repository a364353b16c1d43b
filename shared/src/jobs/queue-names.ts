/** The BullMQ queues of the media job path, one per worker role (`WORKER_QUEUES`). */
export const QUEUE_NAMES = ['image', 'speech', 'transcription', 'video'] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];
