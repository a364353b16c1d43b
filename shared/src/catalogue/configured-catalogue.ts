import type { Config } from '../config/config.ts';
import type { Catalogue } from './catalogue.ts';
import { CatalogueError, loadCatalogue } from './load-catalogue.ts';

/**
 * The catalogue as a process uses it: the configured file, with the configured OpenAI-compatible
 * upstreams as known providers, and the configured default media models checked to exist with
 * the right type. Any problem stops the process at start.
 */
export function loadConfiguredCatalogue(
  config: Pick<Config, 'catalogue' | 'compatibleUpstreams' | 'media'>,
): Catalogue {
  const catalogue = loadCatalogue(config.catalogue.path, {
    extraProviders: Object.keys(config.compatibleUpstreams),
  });
  const defaults = [
    ['DEFAULT_IMAGE_MODEL', config.media.defaultImageModel, 'image'],
    ['DEFAULT_TTS_MODEL', config.media.defaultTtsModel, 'tts'],
    ['DEFAULT_STT_MODEL', config.media.defaultSttModel, 'stt'],
  ] as const;
  const problems = defaults.flatMap(([variable, id, type]) => {
    const model = catalogue.get(id);
    if (model === undefined) return [`${variable} names ${id}, which is not in the catalogue`];
    if (model.type !== type || !model.enabled)
      return [`${variable} names ${id}, which is not an enabled ${type} model`];
    return [];
  });
  if (problems.length > 0) throw new CatalogueError(config.catalogue.path ?? '(built-in)', problems);
  return catalogue;
}
