// s3rver ships no type declarations; this declares the part of its API the project uses.
declare module 's3rver' {
  interface S3rverOptions {
    readonly address?: string;
    readonly port?: number;
    readonly directory: string;
    readonly silent?: boolean;
    readonly configureBuckets?: ReadonlyArray<{ readonly name: string }>;
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Listens; resolves with the bound address. */
    run(): Promise<{ address: string; port: number; family: string }>;
    close(): Promise<void>;
  }
}
