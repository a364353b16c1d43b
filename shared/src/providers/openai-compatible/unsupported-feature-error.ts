// One error class for every adapter, so the gateway maps it to 400 with a single check.
export { UnsupportedFeatureError } from '../chat-types.ts';
