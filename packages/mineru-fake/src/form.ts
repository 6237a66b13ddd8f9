import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

export interface UploadedFile {
  name: string;
  data: Uint8Array;
}

export interface ReceivedForm {
  files: UploadedFile[];
  fields: [string, string][];
}

/** Reads a multipart body whole. A body that is not multipart reads as an empty form. */
export function readForm(req: IncomingMessage): Promise<ReceivedForm> {
  const form: ReceivedForm = { files: [], fields: [] };
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return new Promise((resolve, reject) => {
      req.on('error', reject);
      req.on('end', () => resolve(form));
      req.resume();
    });
  }
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: req.headers, defParamCharset: 'utf8' });
    const pending: Promise<void>[] = [];
    parser.on('file', (name, stream, info) => {
      if (name !== 'files') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      pending.push(
        new Promise((done, fail) => {
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', fail);
          stream.on('end', () => {
            form.files.push({ name: info.filename ?? 'upload', data: new Uint8Array(Buffer.concat(chunks)) });
            done();
          });
        }),
      );
    });
    parser.on('field', (name, value) => form.fields.push([name, value]));
    parser.on('error', reject);
    parser.on('close', () => {
      Promise.all(pending).then(() => resolve(form), reject);
    });
    req.pipe(parser);
  });
}

export type Backend = 'pipeline' | 'vlm-engine' | 'hybrid-engine' | 'vlm-http-client' | 'hybrid-http-client';

export interface ParseOptions {
  backend: Backend;
  parseMethod: string;
  langList: string[];
  startPageId: number;
  endPageId: number;
  returnMd: boolean;
  returnMiddleJson: boolean;
  returnModelOutput: boolean;
  returnContentList: boolean;
  returnImages: boolean;
  responseFormatZip: boolean;
}

/** What FastAPI answers when the form does not validate: a status and its JSON body. */
export interface FormRejection {
  status: 400 | 422;
  body: { detail: unknown };
}

const BACKENDS: readonly Backend[] = ['pipeline', 'vlm-engine', 'hybrid-engine', 'vlm-http-client', 'hybrid-http-client'];
/** MinerU 3 still accepts its 2.x backend names and normalizes them. */
const LEGACY_BACKENDS: Record<string, Backend> = { 'vlm-auto-engine': 'vlm-engine', 'hybrid-auto-engine': 'hybrid-engine' };
const PARSE_METHODS = ['auto', 'ocr', 'txt'];
const EFFORTS = ['medium', 'high'];
const BOOLEAN_FIELDS = {
  formula_enable: true,
  table_enable: true,
  image_analysis: true,
  return_md: true,
  return_middle_json: false,
  return_model_output: false,
  return_content_list: false,
  return_images: false,
  response_format_zip: false,
  return_original_file: false,
  client_side_output_generation: false,
} as const;
const INTEGER_FIELDS = { start_page_id: 0, end_page_id: 99999 } as const;

/**
 * The form's options with MinerU's defaults, or the answer MinerU gives: FastAPI's `422` with a
 * pydantic error list for missing files and unparseable booleans/integers (all errors at once),
 * then MinerU's own `400` for an unknown backend, effort or parse_method.
 */
export function validateForm(form: ReceivedForm): ParseOptions | FormRejection {
  // Starlette's form keeps the last value of a repeated scalar field.
  const last = (name: string) => form.fields.filter(([key]) => key === name).map(([, value]) => value).pop();
  const errors: Record<string, unknown>[] = [];
  if (form.files.length === 0) errors.push({ type: 'missing', loc: ['body', 'files'], msg: 'Field required', input: null });

  const booleans = {} as Record<keyof typeof BOOLEAN_FIELDS, boolean>;
  for (const [name, fallback] of Object.entries(BOOLEAN_FIELDS) as [keyof typeof BOOLEAN_FIELDS, boolean][]) {
    const raw = last(name);
    const value = raw === undefined ? fallback : parseBoolean(raw);
    if (value === undefined) {
      errors.push({ type: 'bool_parsing', loc: ['body', name], msg: 'Input should be a valid boolean, unable to interpret input', input: raw });
    } else booleans[name] = value;
  }
  const integers = {} as Record<keyof typeof INTEGER_FIELDS, number>;
  for (const [name, fallback] of Object.entries(INTEGER_FIELDS) as [keyof typeof INTEGER_FIELDS, number][]) {
    const raw = last(name);
    const value = raw === undefined ? fallback : /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : undefined;
    if (value === undefined) {
      errors.push({ type: 'int_parsing', loc: ['body', name], msg: 'Input should be a valid integer, unable to parse string as an integer', input: raw });
    } else integers[name] = value;
  }
  if (errors.length > 0) return { status: 422, body: { detail: errors } };

  const rawBackend = last('backend') ?? 'hybrid-engine';
  const backend = LEGACY_BACKENDS[rawBackend] ?? BACKENDS.find((b) => b === rawBackend);
  if (backend === undefined) return reject400(`Invalid backend. Allowed values: ${BACKENDS.join(', ')}`);
  const effort = last('effort') ?? 'medium';
  if (!EFFORTS.includes(effort)) return reject400(`Invalid effort. Allowed values: ${EFFORTS.join(', ')}`);
  const parseMethod = last('parse_method') ?? 'auto';
  if (!PARSE_METHODS.includes(parseMethod)) return reject400(`Invalid parse_method. Allowed values: ${PARSE_METHODS.join(', ')}`);

  const langs = form.fields.filter(([key]) => key === 'lang_list').map(([, value]) => value);
  return {
    backend,
    parseMethod,
    langList: langs.length > 0 ? langs : ['ch'],
    startPageId: integers.start_page_id,
    endPageId: integers.end_page_id,
    returnMd: booleans.return_md,
    returnMiddleJson: booleans.return_middle_json,
    returnModelOutput: booleans.return_model_output,
    returnContentList: booleans.return_content_list,
    returnImages: booleans.return_images,
    responseFormatZip: booleans.response_format_zip,
  };
}

function reject400(detail: string): FormRejection {
  return { status: 400, body: { detail } };
}

/** Pydantic's lax boolean parsing of form strings. */
function parseBoolean(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 't', 'yes', 'y', 'on'].includes(value)) return true;
  if (['0', 'false', 'f', 'no', 'n', 'off'].includes(value)) return false;
  return undefined;
}
