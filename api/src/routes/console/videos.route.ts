import type { FastifyInstance } from 'fastify';
import type { MediaJob } from '../../../../shared/src/media-jobs/media-job.ts';
import { guardConsoleRoutes, requireHolderAccount } from '../../console/console-auth.ts';
import { sendVideoContent } from '../../media/send-video-content.ts';
import { videoRecord } from '../../media/video-record.ts';
import {
  type AccountVideosDeps,
  listRetainedVideos,
  readVideoContent,
} from '../../use-cases/account-videos.ts';
import { idParamsSchema } from '../admin/admin.schema.ts';
import { consoleErrorResponses } from './console.schema.ts';
import { CONSOLE_API_PREFIX, type ConsoleDeps } from './console-deps.ts';

type IdParams = { id: string };

/**
 * A holder's videos while retained (the spec's Video records), and the MP4 of a finished one with
 * the session instead of a key (`Range` supported), which is what each record's `url` points to.
 */
export async function videosRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );
  const videos: AccountVideosDeps = {
    jobs: deps.media.jobs,
    storage: deps.media.storage,
    retentionMs: deps.config.media.videoRetentionMs,
    clock: deps.accounts.clock,
  };

  app.get('/videos', { schema: { response: consoleErrorResponses } }, async (request) => {
    const account = requireHolderAccount(request);
    const jobs = await listRetainedVideos(videos, { accountId: account.id });
    return { object: 'list', data: jobs.map(consoleVideo) };
  });

  app.get<{ Params: IdParams }>(
    '/videos/:id/content',
    { schema: { params: idParamsSchema, response: consoleErrorResponses } },
    async (request, reply) => {
      const account = requireHolderAccount(request);
      const content = await readVideoContent(videos, {
        accountId: account.id,
        videoId: request.params.id,
        range: request.headers.range,
        now: videos.clock(),
      });
      return sendVideoContent(reply, content);
    },
  );
}

/**
 * The spec's Video record, its `url` the console's content route (a path on this origin: the
 * session, not a key, opens it).
 */
function consoleVideo(job: MediaJob) {
  const record = videoRecord(job, '');
  return 'url' in record ? { ...record, url: `${CONSOLE_API_PREFIX}/videos/${job.id}/content` } : record;
}
