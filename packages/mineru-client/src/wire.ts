/**
 * MinerU's wire format (mineru-api 3.x, API protocol 2), as its FastAPI server sends it. Field
 * names stay snake_case here on purpose: these types describe bytes on the wire, not our model.
 */

export type MinerUTaskState = 'pending' | 'processing' | 'completed' | 'failed';

export const MINERU_BACKENDS = ['pipeline', 'vlm-engine', 'hybrid-engine', 'vlm-http-client', 'hybrid-http-client'] as const;
export type MinerUBackend = (typeof MINERU_BACKENDS)[number];
export type MinerUParseMethod = 'auto' | 'txt' | 'ocr';

/** `GET /tasks/{id}`, the body of `POST /tasks` (plus `message`), and of result `202`/`409`. */
export interface MinerUTaskStatus {
  task_id: string;
  status: MinerUTaskState;
  backend: string;
  file_names: string[];
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  status_url: string;
  result_url: string;
  /** Pending tasks submitted before this one; MinerU omits it from result `202`/`409` bodies. */
  queued_ahead?: number;
  message?: string;
}

/** `GET /health` when healthy. MinerU answers `503 {status: "unhealthy", version, error}` otherwise. */
export interface MinerUHealth {
  status: string;
  version: string;
  protocol_version: number;
  queued_tasks: number;
  processing_tasks: number;
  completed_tasks: number;
  failed_tasks: number;
  max_concurrent_requests: number;
  processing_window_size?: number;
  task_retention_seconds?: number;
  task_cleanup_interval_seconds?: number;
}

/** One file's entry in `results`. Each key is present only when its `return_*` flag was set. */
export interface MinerUWireFileResult {
  md_content?: string | null;
  /** JSON text of `<stem>_middle.json`. */
  middle_json?: string | null;
  model_output?: string | null;
  /** JSON text of `<stem>_content_list.json`. */
  content_list?: string | null;
  /** Bare file name (`<sha256>.jpg`) → `data:image/…;base64,…`. */
  images?: Record<string, string>;
}

/** `GET /tasks/{id}/result` `200` (JSON mode). */
export interface MinerUWireResult {
  backend: string;
  version: string;
  results: Record<string, MinerUWireFileResult>;
}

/**
 * One item of content_list.json, in reading order. Types seen in MinerU 3: text, image, table,
 * chart, equation, code, list, header, footer, page_number, aside_text, page_footnote. `bbox` is
 * `[x0, y0, x1, y1]` scaled to 0–1000 of the page, origin top-left.
 */
export interface MinerUContentItem {
  type: string;
  page_idx: number;
  bbox?: number[];
  text?: string;
  /** 1, 2, … for headings; absent or 0 for body text. */
  text_level?: number;
  text_format?: string;
  /** `images/<name>`; the `images` map is keyed by the bare `<name>`. */
  img_path?: string;
  image_caption?: string[];
  image_footnote?: string[];
  table_caption?: string[];
  table_footnote?: string[];
  /** HTML (`<html><body><table>…`). */
  table_body?: string;
  sub_type?: string;
  code_body?: string;
  code_caption?: string[];
  list_items?: string[];
  [field: string]: unknown;
}
