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

// s3rver's account registry: the key pairs its signature check accepts.
declare module 's3rver/lib/models/account.js' {
  interface S3rverAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
  const accounts: { readonly DUMMY_ACCOUNT: S3rverAccount };
  export default accounts;
}
