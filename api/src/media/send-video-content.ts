import type { FastifyReply } from 'fastify';
import { errors } from '../../../shared/src/errors/app-error.ts';
import type { VideoContent } from '../use-cases/account-videos.ts';

/**
 * Answers the MP4 of a video as `readVideoContent` read it: 200 with the whole file, 206 with the
 * range asked for, or 416 (in the error format) naming the size when that range lies outside it.
 */
export function sendVideoContent(reply: FastifyReply, content: VideoContent): FastifyReply {
  if ('unsatisfiable' in content) {
    const refused = errors.clientError(
      416,
      `The requested range lies outside the video's ${content.sizeBytes} bytes.`,
    );
    return reply.code(416).header('content-range', `bytes */${content.sizeBytes}`).send(refused.toBody());
  }
  reply
    .header('content-type', 'video/mp4')
    .header('accept-ranges', 'bytes')
    .header('content-length', String(content.contentLength));
  if (content.contentRange !== undefined) reply.code(206).header('content-range', content.contentRange);
  return reply.send(content.body);
}
