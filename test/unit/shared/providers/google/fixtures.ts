/**
 * Gemini answers shaped like the documented examples (https://ai.google.dev/api/generate-content,
 * https://ai.google.dev/gemini-api/docs/function-calling, .../google-search, .../thinking).
 */

export const textResponse = {
  candidates: [
    {
      content: { parts: [{ text: 'AI learns patterns from data.' }], role: 'model' },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 8,
    candidatesTokenCount: 13,
    totalTokenCount: 21,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 8 }],
  },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'mAitaLmkHPPlz7IPvtfUqQ4',
};

export const functionCallResponse = {
  candidates: [
    {
      content: {
        parts: [
          {
            functionCall: {
              name: 'schedule_meeting',
              args: { attendees: ['Bob', 'Alice'], date: '2025-03-27', time: '10:00', topic: 'Q3 planning' },
            },
            thoughtSignature: 'CiQBVKhc7qXX',
          },
          { functionCall: { name: 'get_weather', args: { location: 'Paris' } } },
        ],
        role: 'model',
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
  modelVersion: 'gemini-3-flash-preview',
};

export const thinkingResponse = {
  candidates: [
    {
      content: {
        parts: [
          { text: '**Weighing the options**\nThe user asks…', thought: true },
          { text: 'The answer is 42.' },
        ],
        role: 'model',
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 2000,
    cachedContentTokenCount: 1500,
    candidatesTokenCount: 6,
    thoughtsTokenCount: 120,
    totalTokenCount: 2126,
  },
};

export const groundedResponse = {
  candidates: [
    {
      content: {
        parts: [{ text: 'Spain won Euro 2024, defeating England 2-1 in the final.' }],
        role: 'model',
      },
      finishReason: 'STOP',
      index: 0,
      groundingMetadata: {
        webSearchQueries: ['UEFA Euro 2024 winner', 'who won euro 2024'],
        searchEntryPoint: { renderedContent: '<!-- HTML and CSS for the search widget -->' },
        groundingChunks: [
          {
            web: {
              uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/aaa',
              title: 'aljazeera.com',
            },
          },
          {
            web: {
              uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/bbb',
              title: 'uefa.com',
            },
          },
          {
            web: {
              uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/aaa',
              title: 'aljazeera.com',
            },
          },
        ],
        groundingSupports: [
          {
            segment: { startIndex: 0, endIndex: 19, text: 'Spain won Euro 2024' },
            groundingChunkIndices: [0, 1],
          },
        ],
      },
    },
  ],
  usageMetadata: {
    promptTokenCount: 12,
    candidatesTokenCount: 15,
    toolUsePromptTokenCount: 300,
    totalTokenCount: 327,
  },
};

export const blockedPromptResponse = {
  promptFeedback: {
    blockReason: 'SAFETY',
    safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH' }],
  },
  usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
};

/** A text stream as Gemini sends it with alt=sse (usage on every event, finishReason last). */
export const textStream = [
  {
    candidates: [{ content: { parts: [{ text: 'Hello' }], role: 'model' }, index: 0 }],
    usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 },
    modelVersion: 'gemini-2.5-flash',
  },
  {
    candidates: [{ content: { parts: [{ text: ' world' }], role: 'model' }, index: 0 }],
    usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 },
    modelVersion: 'gemini-2.5-flash',
  },
  {
    candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
    modelVersion: 'gemini-2.5-flash',
  },
];
