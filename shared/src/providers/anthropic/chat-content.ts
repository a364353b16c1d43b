/**
 * Content parts of the chat convention → Anthropic content blocks. Documented shapes followed:
 * text blocks; image blocks with `source.type: 'url'` (https) or `'base64'` with `media_type`
 * (jpeg, png, gif, webp) from https://docs.anthropic.com/en/docs/build-with-claude/vision; PDF
 * `document` blocks with a base64 `application/pdf` source from
 * https://docs.anthropic.com/en/docs/build-with-claude/pdf-support.
 */
import type { ContentPart } from '../chat-types.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';
import type { DocumentBlockParam, ImageBlockParam, ImageSource, TextBlockParam } from './wire-types.ts';

export type MediaBlock = TextBlockParam | ImageBlockParam | DocumentBlockParam;

type Content = string | ContentPart[] | null | undefined;

const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const DATA_URL = /^data:([^;,]+)(?:;[^;,]*)*;base64,([\s\S]*)$/i;

/** Text-only content (system, developer and assistant messages); other parts are rejected. */
export function textBlocks(content: Content, param: string): TextBlockParam[] {
  return parts(content).flatMap((part, i) => {
    if (part.type !== 'text') {
      throw new UnsupportedFeatureError(
        `${param}[${i}]`,
        `Anthropic accepts only text parts in this message; got a \`${part.type}\` part.`,
      );
    }
    return text(part.text);
  });
}

/** User or tool-result content: text, images (https or data URL) and PDF files. */
export function mediaBlocks(content: Content, param: string): MediaBlock[] {
  return parts(content).flatMap((part, i): MediaBlock[] => {
    if (part.type === 'text') return text(part.text);
    if (part.type === 'image_url') return [imageBlock(part.image_url, `${param}[${i}].image_url`)];
    return [documentBlock(part.file, `${param}[${i}].file`)];
  });
}

function parts(content: Content): ContentPart[] {
  if (content === null || content === undefined) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

// Anthropic rejects empty text blocks, and an empty string adds nothing to the conversation.
function text(value: string): TextBlockParam[] {
  return value === '' ? [] : [{ type: 'text', text: value }];
}

function imageBlock(image: string | { url: string; detail?: string }, param: string): ImageBlockParam {
  // `detail` has no Anthropic counterpart: the model always sees the image at its own resolution.
  const url = typeof image === 'string' ? image : image.url;
  return { type: 'image', source: imageSource(url, param) };
}

function imageSource(url: string, param: string): ImageSource {
  if (/^https:\/\//i.test(url)) return { type: 'url', url };
  const parsed = parseDataUrl(url);
  if (parsed === undefined) {
    throw new UnsupportedFeatureError(param, 'An image URL must be an https address or a base64 data URL.');
  }
  const mediaType = parsed.mediaType === 'image/jpg' ? 'image/jpeg' : parsed.mediaType;
  if (!isImageMediaType(mediaType)) {
    throw new UnsupportedFeatureError(
      param,
      `Anthropic accepts images of type jpeg, png, gif or webp; got \`${parsed.mediaType}\`.`,
    );
  }
  return { type: 'base64', media_type: mediaType, data: parsed.data };
}

function isImageMediaType(value: string): value is 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' {
  return IMAGE_MEDIA_TYPES.has(value);
}

function documentBlock(file: { filename?: string; file_data?: string }, param: string): DocumentBlockParam {
  const parsed = file.file_data === undefined ? undefined : parseDataUrl(file.file_data);
  if (parsed?.mediaType !== 'application/pdf') {
    throw new UnsupportedFeatureError(
      param,
      'Anthropic accepts `file` parts only as PDF data URLs (`data:application/pdf;base64,...`).',
    );
  }
  const block: DocumentBlockParam = {
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data: parsed.data },
  };
  if (file.filename !== undefined && file.filename !== '') block.title = file.filename;
  return block;
}

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  if (match === null) return undefined;
  return { mediaType: (match[1] ?? '').toLowerCase(), data: match[2] ?? '' };
}
