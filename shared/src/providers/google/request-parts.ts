/**
 * User content parts to Gemini parts: text, images (data URLs inline, https URLs by reference) and
 * PDF files, per https://ai.google.dev/gemini-api/docs/image-understanding and
 * https://ai.google.dev/gemini-api/docs/document-processing (inlineData {mimeType, data},
 * fileData {fileUri, mimeType}).
 */
import type { ContentPart } from '../chat-types.ts';
import { UnsupportedFeatureError } from './errors.ts';
import type { GeminiPart } from './wire-request.ts';

const IMAGE_TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

/**
 * Gemini needs a MIME type for a referenced file and an image URL carries none: take it from the
 * path's extension, else assume JPEG (the most common photo format; Gemini sniffs the bytes anyway).
 */
export function imageMimeTypeOfUrl(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not a parseable URL: fall back to the raw text, the extension check still works.
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension && IMAGE_TYPES_BY_EXTENSION[extension]) ?? 'image/jpeg';
}

/** `data:<mime>;base64,<data>` split into Gemini's inline blob. */
export function inlineDataOf(dataUrl: string, what: string): GeminiPart {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl);
  if (!match?.[1] || match[2] === undefined) {
    throw new UnsupportedFeatureError(null, `${what} must be a base64 data URL (data:<type>;base64,...).`);
  }
  return { inlineData: { mimeType: match[1], data: match[2] } };
}

function imagePart(imageUrl: ContentPart & { type: 'image_url' }): GeminiPart {
  const url = typeof imageUrl.image_url === 'string' ? imageUrl.image_url : imageUrl.image_url.url;
  if (url.startsWith('data:')) return inlineDataOf(url, 'An image data URL');
  if (url.startsWith('https://')) return { fileData: { fileUri: url, mimeType: imageMimeTypeOfUrl(url) } };
  throw new UnsupportedFeatureError(null, 'An image URL must be https or a base64 data URL.');
}

function filePart(file: ContentPart & { type: 'file' }): GeminiPart {
  const data = file.file.file_data;
  if (!data)
    throw new UnsupportedFeatureError(
      null,
      'A file part needs file_data (a data:application/pdf;base64 URL).',
    );
  return inlineDataOf(data, 'A file part');
}

/** One chat content part as a Gemini part. */
export function partOf(part: ContentPart): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return imagePart(part);
    case 'file':
      return filePart(part);
  }
}

/** A message's content (string, parts or nothing) as Gemini parts. */
export function partsOf(content: string | ContentPart[] | null | undefined): GeminiPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ text: content }] : [];
  return content.map(partOf);
}

/** The text of content that may only hold text (system, developer and tool messages). */
export function textOf(content: string | ContentPart[] | null | undefined, role: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type !== 'text')
        throw new UnsupportedFeatureError(null, `Content of ${role} messages may only hold text parts.`);
      return part.text;
    })
    .join('\n');
}
