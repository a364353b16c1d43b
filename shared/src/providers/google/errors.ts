/**
 * A chat or embedding request that Gemini cannot honour as asked. Thrown by the request mappers
 * before anything is sent, so the gateway can answer 400 instead of silently changing the meaning
 * (or the price) of the request.
 */
export class UnsupportedFeatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedFeatureError';
  }
}
