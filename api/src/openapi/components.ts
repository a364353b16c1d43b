import {
  accountListSchema,
  accountSchema,
  createdKeySchema,
  keyListSchema,
  keySchema,
  ledgerListSchema,
  topUpSchema,
} from '../routes/admin/admin.schema.ts';
import { chatRequestSchema } from '../schemas/chat-request.schema.ts';
import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  citationSchema,
  embeddingListSchema,
  serviceSchema,
  streamErrorSchema,
  toolCallSchema,
  usageSchema,
} from '../schemas/chat-response.schema.ts';
import { embeddingRequestSchema } from '../schemas/embedding-request.schema.ts';
import { invitationSchema } from '../schemas/invitation.schema.ts';
import { ledgerEntrySchema } from '../schemas/ledger-entry.schema.ts';
import {
  imageRequestSchema,
  speechRequestSchema,
  videoRequestSchema,
} from '../schemas/media-request.schema.ts';
import {
  fieldErrorsSchema,
  imagesResponseSchema,
  transcriptionFormSchema,
  transcriptionSchema,
  videoDeletedSchema,
  videoListSchema,
  videoSchema,
} from '../schemas/media-response.schema.ts';
import { errorSchema, modelListSchema, modelSchema, pricingSchema } from '../schemas/model.schema.ts';
import { requestListSchema, requestRecordSchema } from '../schemas/request-record.schema.ts';
import { usageRowSchema } from '../schemas/usage-row.schema.ts';
import { balanceSchema, usageListSchema } from '../schemas/wallet.schema.ts';

/**
 * The named schemas of the document (`#/components/schemas/<name>`). Routes use these very objects
 * in their schemas; the document replaces each occurrence by a reference to its name, so a route
 * schema stays whole (a Fastify app without the document still compiles it) while the document
 * names every shared shape once.
 */
export const COMPONENTS = {
  Error: errorSchema,
  FieldErrors: fieldErrorsSchema,
  Model: modelSchema,
  ModelList: modelListSchema,
  Pricing: pricingSchema,
  ChatCompletionRequest: chatRequestSchema,
  ChatCompletion: chatCompletionSchema,
  ChatCompletionChunk: chatCompletionChunkSchema,
  StreamError: streamErrorSchema,
  Usage: usageSchema,
  ServiceCost: serviceSchema,
  ToolCall: toolCallSchema,
  Citation: citationSchema,
  EmbeddingRequest: embeddingRequestSchema,
  EmbeddingList: embeddingListSchema,
  ImageRequest: imageRequestSchema,
  ImagesResponse: imagesResponseSchema,
  SpeechRequest: speechRequestSchema,
  TranscriptionForm: transcriptionFormSchema,
  Transcription: transcriptionSchema,
  VideoRequest: videoRequestSchema,
  Video: videoSchema,
  VideoList: videoListSchema,
  VideoDeleted: videoDeletedSchema,
  Balance: balanceSchema,
  UsageList: usageListSchema,
  UsageRow: usageRowSchema,
  Account: accountSchema,
  AccountList: accountListSchema,
  Key: keySchema,
  CreatedKey: createdKeySchema,
  KeyList: keyListSchema,
  LedgerEntry: ledgerEntrySchema,
  LedgerList: ledgerListSchema,
  TopUp: topUpSchema,
  Invitation: invitationSchema,
  RequestRecord: requestRecordSchema,
  RequestList: requestListSchema,
} as const satisfies Record<string, object>;

const NAMES = new Map<object, string>(Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]));

/**
 * A copy of `value` in which every component object, at any depth (but `keep`, the definition
 * being named), is a reference to it as Fastify's shared schemas spell one (`<name>#`).
 */
export function referencingComponents(value: unknown, keep?: object): unknown {
  if (Array.isArray(value)) return value.map((item) => referencingComponents(item, keep));
  if (typeof value !== 'object' || value === null) return value;
  const name = value === keep ? undefined : NAMES.get(value);
  if (name !== undefined) return { $ref: `${name}#` };
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, referencingComponents(item, keep)]),
  );
}

/** The components as Fastify shared schemas (`$id` = name), each referencing the others by name. */
export function componentSchemas(): Array<Record<string, unknown>> {
  return Object.entries(COMPONENTS).map(([name, schema]) => ({
    $id: name,
    ...(referencingComponents(schema, schema) as Record<string, unknown>),
  }));
}
