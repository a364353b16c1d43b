import { UpstreamProtocolError } from '../providers/chat-types.ts';
import type { PngImage } from '../providers/media-route.ts';
import type { GeneratedImage, ImageRequest } from '../providers/media-types.ts';
import { capabilityOf, downloadBytes, type MediaUpstream, sendForJson } from './media-calls.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The images of a request from an HTTP route, as PNG bytes (fetched when the answer gave addresses). */
export async function generateImages(route: MediaUpstream, input: ImageRequest): Promise<PngImage[]> {
  const images = capabilityOf(route, 'images');
  const result = images.response(await sendForJson(route, images.request(input, route.target)), input);
  if (result.images.length === 0) throw new UpstreamProtocolError('the provider answered no image');
  return Promise.all(result.images.map((image) => toPng(route, image)));
}

async function toPng(route: MediaUpstream, image: GeneratedImage): Promise<PngImage> {
  let png: Uint8Array;
  if (image.base64 !== undefined) png = Buffer.from(image.base64, 'base64');
  else if (image.url !== undefined)
    png = await downloadBytes(route, { method: 'GET', url: image.url, headers: {} });
  else throw new UpstreamProtocolError('the provider answered an image without data');
  if (!Buffer.from(png.subarray(0, 8)).equals(PNG_SIGNATURE))
    throw new UpstreamProtocolError('the provider answered an image that is not a PNG');
  return { png, revisedPrompt: image.revisedPrompt ?? null };
}
