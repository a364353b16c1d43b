/**
 * The demo MP4: one small committed H.264 asset, re-timed to any requested duration.
 *
 * The asset `../assets/demo-video.mp4` was made once at development time with ffmpeg 5.1 (ffmpeg is
 * not needed to run or test anything):
 *
 *   ffmpeg -f lavfi -i "gradients=size=320x180:rate=24:duration=8:speed=0.01:seed=7:nb_colors=3" \
 *     -vf "drawtext=…DejaVuSans-Bold.ttf:text='DEMO VIDEO':fontsize=28…, \
 *          drawtext=…DejaVuSans.ttf:text='simulated offline render':fontsize=14…,format=yuv420p" \
 *     -an -c:v libx264 -profile:v baseline -level 3.0 -preset veryslow -crf 30 -g 96 \
 *     -map_metadata -1 -fflags +bitexact -flags:v +bitexact -movflags +faststart demo-video.mp4
 *
 * ffprobe: h264 Constrained Baseline, level 3.0, 320x180, yuv420p, 24 fps, 192 frames, 8.000 s,
 * no audio, no B-frames (no ctts), keyframes at frames 1 and 97; 25,668 bytes; sha256 b292422d….
 * Boxes: ftyp, moov (mvhd, trak: tkhd, edts/elst, mdia: mdhd, stbl with one stts entry), free,
 * mdat (faststart: moov before mdat). All version-0 boxes.
 *
 * Re-timing: the same 192 frames are shown for `seconds` in total. The media timescale becomes
 * 1000 × frames and every sample lasts round(1000 × seconds) ticks; the movie, track and edit-list
 * durations become round(1000 × seconds) in the movie timescale (1000). Only fixed-size fields
 * change, so offsets stay valid: an 8 s request gives the asset as made, a 4 s one plays at 48 fps,
 * a 16 s one at 12 fps. Resolution and aspect ratio are always those of the asset.
 */
import { readFileSync } from 'node:fs';

/** Properties of the committed asset (checked by the tests). */
export const DEMO_MP4_ASSET = {
  width: 320,
  height: 180,
  frames: 192,
  seconds: 8,
  bytes: 25668,
} as const;
/** Shortest and longest durations `demoMp4` accepts, in seconds. */
export const DEMO_MP4_MIN_SECONDS = 1;
export const DEMO_MP4_MAX_SECONDS = 600;

let asset: Uint8Array | undefined;

function assetBytes(): Uint8Array {
  asset ??= new Uint8Array(readFileSync(new URL('../assets/demo-video.mp4', import.meta.url)));
  return asset;
}

interface Box {
  type: string;
  /** Offset of the box header. */
  start: number;
  end: number;
}

function children(view: DataView, start: number, end: number): Box[] {
  const boxes: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    const size = view.getUint32(at);
    if (size < 8 || at + size > end) throw new Error(`Malformed MP4 box at offset ${at}.`);
    const type = String.fromCharCode(...new Uint8Array(view.buffer, view.byteOffset + at + 4, 4));
    boxes.push({ type, start: at, end: at + size });
    at += size;
  }
  return boxes;
}

/** Every box reached by `path` (e.g. `['moov', 'trak', 'tkhd']`), depth first. */
function find(view: DataView, path: readonly string[], start = 0, end = view.byteLength): Box[] {
  const [head, ...rest] = path;
  const matches = children(view, start, end).filter((box) => box.type === head);
  if (rest.length === 0) return matches;
  return matches.flatMap((box) => find(view, rest, box.start + 8, box.end));
}

/** The single full box at `path`, checked to be version 0. */
function fullBox(view: DataView, path: readonly string[]): Box[] {
  const boxes = find(view, path);
  if (boxes.length === 0) throw new Error(`MP4 box ${path.join('/')} not found.`);
  for (const box of boxes) {
    if (view.getUint8(box.start + 8) !== 0) throw new Error(`MP4 box ${path.join('/')} is not version 0.`);
  }
  return boxes;
}

function retime(view: DataView, milliseconds: number): void {
  // mvhd: version/flags, creation, modification, timescale (offset 20), duration (offset 24)
  for (const mvhd of fullBox(view, ['moov', 'mvhd'])) view.setUint32(mvhd.start + 24, milliseconds);
  // tkhd: version/flags, creation, modification, track id, reserved, duration (offset 28)
  for (const tkhd of fullBox(view, ['moov', 'trak', 'tkhd'])) view.setUint32(tkhd.start + 28, milliseconds);
  // elst: version/flags, entry count, then (segment duration, media time, rate) entries
  for (const elst of find(view, ['moov', 'trak', 'edts', 'elst'])) {
    if (view.getUint32(elst.start + 12) !== 1) throw new Error('MP4 edit list has more than one entry.');
    view.setUint32(elst.start + 16, milliseconds);
  }
  let frames = 0;
  for (const stts of fullBox(view, ['moov', 'trak', 'mdia', 'minf', 'stbl', 'stts'])) {
    const entries = view.getUint32(stts.start + 12);
    for (let i = 0; i < entries; i += 1) {
      frames += view.getUint32(stts.start + 16 + i * 8);
      view.setUint32(stts.start + 20 + i * 8, milliseconds);
    }
  }
  // mdhd: version/flags, creation, modification, timescale (offset 20), duration (offset 24)
  for (const mdhd of fullBox(view, ['moov', 'trak', 'mdia', 'mdhd'])) {
    view.setUint32(mdhd.start + 20, frames * 1000);
    view.setUint32(mdhd.start + 24, frames * milliseconds);
  }
}

/**
 * A playable H.264 MP4 (320x180, no audio) lasting `seconds` (to the millisecond), from
 * DEMO_MP4_MIN_SECONDS to DEMO_MP4_MAX_SECONDS. A fresh copy each call.
 */
export function demoMp4(seconds: number): Uint8Array {
  if (!Number.isFinite(seconds) || seconds < DEMO_MP4_MIN_SECONDS || seconds > DEMO_MP4_MAX_SECONDS) {
    throw new RangeError(
      `Demo MP4 duration must be from ${DEMO_MP4_MIN_SECONDS} to ${DEMO_MP4_MAX_SECONDS} seconds, got ${seconds}.`,
    );
  }
  const bytes = assetBytes().slice();
  retime(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), Math.round(seconds * 1000));
  return bytes;
}
