/**
 * The documented shapes of the Gemini API's media answers, as zod schemas. Only the fields the
 * adapters read are declared; unknown fields are ignored so new upstream fields never break parsing.
 *
 * Sources (googleapis/js-genai `src/converters/_models_converters.ts`, Gemini Developer API
 * "mldev" converters, and https://ai.google.dev/gemini-api/docs/imagen, /docs/video):
 * - Imagen `:predict` → `{predictions?: [{bytesBase64Encoded?, mimeType?, raiFilteredReason?,
 *   prompt? (the enhanced prompt)}]}`; filtered images are left out, or carry only
 *   `raiFilteredReason` when `includeRaiReason` is set; an answer whose every image was filtered
 *   may have no `predictions` at all.
 * - Veo `:predictLongRunning` → a long-running Operation `{name: "models/<id>/operations/<op>"}`;
 *   `GET /v1beta/{name}` → `{name, done?, error?: {code, message}, response?: {
 *   generateVideoResponse: {generatedSamples?: [{video: {uri}}], raiMediaFilteredCount?,
 *   raiMediaFilteredReasons?}}}`.
 * - Gemini image models `:generateContent` → `{candidates?: [{content: {parts: [{text?} |
 *   {inlineData: {mimeType, data}}]}, finishReason?}], promptFeedback?: {blockReason?},
 *   usageMetadata?}`.
 */
import { z } from 'zod';

export const imagenPredictionSchema = z.object({
  bytesBase64Encoded: z.string().min(1).optional(),
  mimeType: z.string().optional(),
  raiFilteredReason: z.string().optional(),
  prompt: z.string().optional(),
});

export const imagenResponseSchema = z.object({
  predictions: z.array(imagenPredictionSchema).optional(),
});

export const operationNameSchema = z.object({ name: z.string().min(1) });

const generatedSampleSchema = z.object({
  video: z.object({ uri: z.string().min(1).optional(), mimeType: z.string().optional() }).optional(),
});

export const veoOperationSchema = z.object({
  name: z.string().optional(),
  done: z.boolean().optional(),
  error: z.object({ code: z.number().int().optional(), message: z.string().optional() }).optional(),
  response: z
    .object({
      generateVideoResponse: z
        .object({
          generatedSamples: z.array(generatedSampleSchema).optional(),
          raiMediaFilteredCount: z.number().int().optional(),
          raiMediaFilteredReasons: z.array(z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
});

export type VeoOperation = z.infer<typeof veoOperationSchema>;

const count = z.number().int().nonnegative().optional();

export const geminiImageResponseSchema = z.object({
  candidates: z
    .array(
      z.object({
        content: z
          .object({
            parts: z
              .array(
                z.object({
                  text: z.string().optional(),
                  thought: z.boolean().optional(),
                  inlineData: z.object({ mimeType: z.string(), data: z.string().min(1) }).optional(),
                }),
              )
              .optional(),
          })
          .optional(),
        finishReason: z.string().optional(),
      }),
    )
    .optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z.object({ promptTokenCount: count, candidatesTokenCount: count }).optional(),
});

export type GeminiImageResponse = z.infer<typeof geminiImageResponseSchema>;
