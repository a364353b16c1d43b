/**
 * Reading and rewriting one field of a `multipart/form-data` body as sent (RFC 7578), without
 * re-encoding the other parts: speech to text takes its `model_id` and its audio `file` that way
 * (https://elevenlabs.io/docs/api-reference/speech-to-text/convert).
 */
import { errors } from '../../errors/app-error.ts';

/** One part of a multipart body: its field name, filename if any, and where its content lies. */
export interface MultipartPart {
  readonly name: string | undefined;
  readonly filename: string | undefined;
  /** Offsets of the part's content in the body (between its headers and the next delimiter). */
  readonly start: number;
  readonly end: number;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/form-data` content type; 400 when there is none. */
export function boundaryOf(contentType: string | undefined): string {
  const match = /^\s*multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(
    contentType ?? '',
  );
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined)
    throw errors.invalidRequest('The body must be multipart/form-data with a boundary.');
  return boundary;
}

/** The parts of `body`, in order; 400 when it is not a complete multipart body. */
export function multipartParts(body: Uint8Array, boundary: string): MultipartPart[] {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.concat([CRLF, delimiter]);
  const parts: MultipartPart[] = [];
  let at = bytes.indexOf(delimiter);
  if (at !== 0 && (at < 0 || !bytes.subarray(at - 2, at).equals(CRLF))) throw malformed();
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (bytes.subarray(afterDelimiter, afterDelimiter + 2).toString('latin1') === '--') return parts;
    const headersEnd = bytes.indexOf(HEADER_END, afterDelimiter);
    if (headersEnd < 0) throw malformed();
    const next = bytes.indexOf(nextDelimiter, headersEnd + 4);
    if (next < 0) throw malformed();
    const headers = bytes.subarray(afterDelimiter, headersEnd).toString('utf8');
    parts.push({ ...dispositionOf(headers), start: headersEnd + 4, end: next });
    at = next + 2;
  }
}

/** The one part named `name` (a second one is ambiguous: 400), or undefined. */
export function partNamed(parts: readonly MultipartPart[], name: string): MultipartPart | undefined {
  const named = parts.filter((part) => part.name === name);
  if (named.length > 1) throw errors.invalidRequest(`The field \`${name}\` appears twice.`);
  return named[0];
}

/** The text content of a part. */
export function partText(body: Uint8Array, part: MultipartPart): string {
  return new TextDecoder().decode(body.subarray(part.start, part.end));
}

/** `body` with the content of `part` replaced by `text`; every other byte as sent. */
export function withPartText(body: Uint8Array, part: MultipartPart, text: string): Uint8Array {
  return Buffer.concat([body.subarray(0, part.start), Buffer.from(text, 'utf8'), body.subarray(part.end)]);
}

function dispositionOf(headers: string): { name: string | undefined; filename: string | undefined } {
  const line = headers.split('\r\n').find((header) => /^content-disposition\s*:/i.test(header)) ?? '';
  const param = (key: string) => new RegExp(`;\\s*${key}="([^"]*)"`, 'i').exec(line)?.[1];
  return { name: param('name'), filename: param('filename') };
}

function malformed() {
  return errors.invalidRequest('The multipart body is malformed.');
}
