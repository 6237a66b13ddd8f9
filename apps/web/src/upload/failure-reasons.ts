/**
 * A failure in words a person can act on. The API's own message (docs/errors.md) is kept as the
 * detail; this adds what happened in plain terms and what to do next.
 */
export interface FailureExplanation {
  reason: string;
  action: string;
}

const EXPLANATIONS: Record<string, FailureExplanation> = {
  corrupt_document: {
    reason: 'The file is damaged, or it is not really the kind of file its name says.',
    action: 'Open it in the program that made it, save or export it again (for example "Save as PDF"), and upload the new file.',
  },
  encrypted_document: {
    reason: 'The document is protected by a password.',
    action: 'Remove the password in the program that made it and upload it again, or send it through the API with its password.',
  },
  empty_document: { reason: 'The document has no pages.', action: 'Check that you picked the right file.' },
  unsupported_content: {
    reason: 'Readpack can open this type of file, but this one uses content or features it does not support.',
    action: 'Export it to PDF and upload the PDF instead.',
  },
  unsupported_media_type: {
    reason: 'This type of file is not one Readpack reads.',
    action: 'Upload a PDF, Word, PowerPoint, Excel, text or image file.',
  },
  too_many_pages: { reason: 'The document has more pages than this service accepts.', action: 'Split it into smaller documents and upload those.' },
  archive_too_large: { reason: 'The file unpacks to far more data than its size suggests.', action: 'Save it again without embedded media, or export it to PDF.' },
  image_too_large: { reason: 'The image has more pixels than this service accepts.', action: 'Scale it down and upload it again.' },
  page_too_large: { reason: 'A page is too large to render.', action: 'Export the document with a normal page size and upload it again.' },
  render_failed: { reason: 'A page could not be drawn for text recognition.', action: 'Export the document to PDF again and retry.' },
  ocr_language_data_missing: {
    reason: 'The text recognition language you chose is not installed on the server.',
    action: 'Choose another OCR language, or ask the operator to install it.',
  },
  mineru_unavailable: { reason: 'The MinerU engine could not be reached.', action: 'Try again later, or choose the local or auto engine.' },
  mineru_rejected: { reason: 'The MinerU engine refused this file.', action: 'Choose the local engine and upload it again.' },
  mineru_failed: { reason: 'The MinerU engine failed on this file.', action: 'Choose the local engine and upload it again.' },
  mineru_timeout: { reason: 'The MinerU engine took too long.', action: 'Choose the local engine, or split the document.' },
  timeout: { reason: 'Reading the document took longer than allowed.', action: 'Split it into smaller documents and upload those.' },
  resource_limit: { reason: 'Reading the document needed more memory than allowed.', action: 'Split it into smaller documents or reduce its images.' },
  secret_unavailable: { reason: "The document's password can no longer be read on this server.", action: 'Upload the file again.' },
  source_missing: { reason: 'The uploaded file is no longer stored.', action: 'Upload the file again.' },
  enqueue_failed: { reason: 'The file was received but could not be queued.', action: 'Upload the file again.' },
  orphaned: { reason: 'The job lost its worker.', action: 'Upload the file again.' },
  stalled: { reason: 'Reading this document kept crashing its worker.', action: 'Export it to PDF again and retry; if it keeps failing, report it.' },
  file_too_large: { reason: 'The file is larger than this service accepts.', action: 'Compress or split it, then upload again.' },
  too_many_files: { reason: 'Too many files in one batch.', action: 'Upload them in smaller batches.' },
  empty_file: { reason: 'One of the files is empty (0 bytes).', action: 'Check that you picked the right file.' },
  rate_limited: { reason: 'Too many uploads in the last minute.', action: 'Wait a minute and upload again.' },
  too_many_active_jobs: { reason: 'You already have many documents in progress.', action: 'Wait for some to finish, then upload again.' },
  auth_required: { reason: 'This service needs an API key.', action: 'Enter your API key at the top of the page.' },
  invalid_api_key: { reason: 'The API key was not accepted.', action: 'Check the API key at the top of the page.' },
  job_not_found: { reason: 'This job is no longer known to the server (it expired, or was made with another API key).', action: 'Upload the file again.' },
  package_not_found: { reason: 'The package of this job has expired.', action: 'Upload the file again.' },
  network_error: { reason: 'The server could not be reached.', action: 'Check your connection; the page keeps trying.' },
  state_store_unavailable: { reason: 'The service is briefly unavailable.', action: 'Wait a moment; the page keeps trying.' },
};

export function explainFailure(code: string): FailureExplanation {
  return (
    EXPLANATIONS[code] ??
    (code.startsWith('ocr_')
      ? { reason: 'Text recognition failed on this document.', action: 'Try another OCR language, or upload a clearer scan.' }
      : { reason: 'Something went wrong while reading this document.', action: 'Upload it again; if it fails again, report the error code below.' })
  );
}
