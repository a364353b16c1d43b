/**
 * The parts of Gemini's `GenerateContentResponse` the adapter reads, validated with zod, as
 * documented at https://ai.google.dev/api/generate-content#generatecontentresponse (candidates,
 * content.parts with `thought` and `functionCall`, finishReason, groundingMetadata.groundingChunks,
 * promptFeedback.blockReason, usageMetadata). Unknown fields are ignored and enum-like strings are
 * kept open, so a new finish reason or part type never breaks a well-formed answer.
 */
import { z } from 'zod';
import { UpstreamProtocolError } from '../chat-types.ts';

const count = z.number().int().nonnegative().optional();

const partSchema = z.object({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z
    .object({
      id: z.string().optional(),
      name: z.string(),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

const groundingChunkSchema = z.object({
  web: z.object({ uri: z.string().optional(), title: z.string().optional() }).optional(),
});

const candidateSchema = z.object({
  index: z.number().int().nonnegative().optional(),
  content: z.object({ role: z.string().optional(), parts: z.array(partSchema).optional() }).optional(),
  finishReason: z.string().optional(),
  groundingMetadata: z.object({ groundingChunks: z.array(groundingChunkSchema).optional() }).optional(),
});

const usageSchema = z.object({
  promptTokenCount: count,
  cachedContentTokenCount: count,
  candidatesTokenCount: count,
  toolUsePromptTokenCount: count,
  thoughtsTokenCount: count,
  totalTokenCount: count,
});

const responseSchema = z.object({
  candidates: z.array(candidateSchema).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usageSchema.optional(),
});

/** Gemini's error body, also sent as an event inside a stream that already started. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.number().int().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
  }),
});

export type GeminiResponsePart = z.infer<typeof partSchema>;
export type GeminiCandidate = z.infer<typeof candidateSchema>;
export type GeminiUsage = z.infer<typeof usageSchema>;
export type GeminiResponse = z.infer<typeof responseSchema>;

/** A parsed GenerateContentResponse, or UpstreamProtocolError when the JSON lacks its shape. */
export function parseGenerateContentResponse(json: unknown): GeminiResponse {
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success)
    throw new UpstreamProtocolError(`Gemini GenerateContentResponse: ${firstIssue(parsed.error)}`);
  return parsed.data;
}

/** The first validation issue, short (path and reason, never the offending value). */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid body';
}
