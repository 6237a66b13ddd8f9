// The part of busboy 1.6's API this package uses (busboy ships no types; @types/busboy is not
// installed). busboy is here as a dependency of multer.
declare module 'busboy' {
  import type { IncomingHttpHeaders } from 'node:http';
  import type { Readable, Writable } from 'node:stream';

  namespace busboy {
    interface FileInfo {
      filename: string | undefined;
      encoding: string;
      mimeType: string;
    }
    interface FieldInfo {
      nameTruncated: boolean;
      valueTruncated: boolean;
      encoding: string;
      mimeType: string;
    }
    interface Config {
      headers: IncomingHttpHeaders;
      limits?: { fieldSize?: number; fields?: number; fileSize?: number; files?: number; parts?: number };
      defParamCharset?: string;
    }
    interface Events {
      on(event: 'file', listener: (name: string, stream: Readable, info: FileInfo) => void): Busboy;
      on(event: 'field', listener: (name: string, value: string, info: FieldInfo) => void): Busboy;
      on(event: 'close', listener: () => void): Busboy;
      on(event: 'error', listener: (error: unknown) => void): Busboy;
    }
    // Events first: their overloads must win over Writable's catch-all `on(string, any)`.
    type Busboy = Events & Writable;
  }

  function busboy(config: busboy.Config): busboy.Busboy;
  export = busboy;
}
