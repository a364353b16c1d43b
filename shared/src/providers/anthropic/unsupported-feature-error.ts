/**
 * A chat request asks for something the Anthropic Messages API cannot do faithfully (for example
 * `n > 1`, `logprobs`, `temperature` above 1) or carries a value it cannot accept (tool-call
 * arguments that are not a JSON object). Thrown by `request` before anything is sent; the gateway
 * answers it with 400 `invalid_request_error` and charges nothing.
 */
export class UnsupportedFeatureError extends Error {
  /** The request field at fault, e.g. `temperature` or `messages[2].tool_calls[0].function.arguments`. */
  readonly param: string;

  constructor(param: string, message: string) {
    super(message);
    this.name = 'UnsupportedFeatureError';
    this.param = param;
  }
}
