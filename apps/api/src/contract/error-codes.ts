/**
 * Every `error.code` an HTTP answer may carry (docs/errors.md, "HTTP"). `ApiError` only takes
 * these, so a new code cannot ship without appearing in the OpenAPI document and the docs (a test
 * compares this list with the table).
 */
export const HTTP_ERROR_CODES = [
  'admin_auth_required',
  'admin_disabled',
  'admin_read_only',
  'asset_not_found',
  'auth_required',
  'bad_request',
  'bad_upload',
  'batch_not_found',
  'body_too_large',
  'converter_unavailable',
  'empty_file',
  'engine_unavailable',
  'field_name_too_long',
  'field_too_large',
  'file_too_large',
  'internal_error',
  'invalid_api_key',
  'invalid_callback_url',
  'invalid_option',
  'invalid_password',
  'job_not_found',
  'missing_file',
  'missing_files',
  'package_not_found',
  'package_not_ready',
  'rate_limited',
  'route_not_found',
  'state_store_unavailable',
  'too_many_active_jobs',
  'too_many_fields',
  'too_many_files',
  'too_many_parts',
  'too_many_streams',
  'unexpected_file_field',
  'unsupported_media_type',
  'untrusted_host',
] as const;

export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];
