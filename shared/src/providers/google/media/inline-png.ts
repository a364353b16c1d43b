/**
 * The gateway promises base64 PNG (SPEC, ImageResponse), and Google's image models answer PNG by
 * default; an inline image of another type is an undocumented answer, not something to pass on.
 */
import { UpstreamProtocolError } from '../../chat-types.ts';

/**
 * Base64 of the 8-byte PNG signature followed by the first byte of the IHDR length (always 0), so
 * every base64 PNG starts with it.
 */
const PNG_BASE64_PREFIX = 'iVBORw0KGgo';

/** The base64 data when it is a PNG (by declared type, when there is one, and by signature). */
export function requirePngBase64(data: string, mimeType: string | undefined, source: string): string {
  if (mimeType !== undefined && mimeType.toLowerCase() !== 'image/png') {
    throw new UpstreamProtocolError(`${source}: expected image/png, got ${mimeType.slice(0, 40)}`);
  }
  if (!data.startsWith(PNG_BASE64_PREFIX)) {
    throw new UpstreamProtocolError(`${source}: the image data is not a base64 PNG`);
  }
  return data;
}
