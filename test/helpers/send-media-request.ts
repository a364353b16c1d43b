/**
 * Sends what a media adapter built (`MediaHttpRequest`) the way the worker does, with the global
 * fetch: JSON text as is, a multipart body through the web FormData and Blob.
 */
import type { MediaHttpRequest, MultipartBody } from '../../shared/src/providers/media-types.ts';

export function multipartFormData(body: MultipartBody): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body.fields)) form.append(name, value);
  const { file } = body;
  if (file) {
    form.append(file.field, new Blob([new Uint8Array(file.data)], { type: file.contentType }), file.fileName);
  }
  return form;
}

export function sendMediaRequest(request: MediaHttpRequest): Promise<Response> {
  const body = typeof request.body === 'object' ? multipartFormData(request.body) : request.body;
  return fetch(request.url, { method: request.method, headers: request.headers, body });
}

/** The answer's bytes. */
export async function bodyBytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

/** An adapter capability the test needs (fails the file at once when the adapter lacks it). */
export function capability<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the adapter has no ${name} capability`);
  return value;
}
