/** Where the test stores live; given to every test file by the global setup (vitest `provide`). */
export interface StackEndpoints {
  readonly redisUrl: string;
  readonly mongoUrl: string;
  readonly s3: { readonly endpoint: string; readonly accessKeyId: string; readonly secretAccessKey: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackEndpoints;
  }
}
