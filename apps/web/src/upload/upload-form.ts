import { ApiProblem, type ApiClient } from '../api/client.js';
import type { AppConfig, BatchCreated, EngineChoice } from '../api/types.js';
import { announce } from '../ui/announcer.js';
import { h, replaceChildren } from '../ui/dom.js';
import { explainFailure } from './failure-reasons.js';

const ENGINE_WORDS: Record<EngineChoice, string> = {
  local: 'Local (text layer, OCR where needed)',
  auto: 'Auto (MinerU for complex PDFs when available)',
  mineru: 'MinerU (layout analysis service)',
};

const LANGUAGE_WORDS: Record<string, string> = {
  eng: 'English',
  chi_sim: 'Chinese (simplified)',
  'eng+chi_sim': 'English and Chinese (simplified)',
};

/**
 * The batch form: pick or drop files, choose engine and OCR language, upload once. A submit
 * disables the button before anything else happens, so a double-click or a repeated Enter sends
 * one batch; the button comes back when the server has answered.
 */
export function uploadForm(client: ApiClient, config: AppConfig, onUploaded: (batch: BatchCreated) => void): HTMLFormElement {
  let chosen: File[] = [];
  let submitting = false;

  const input = h('input', { type: 'file', id: 'files', name: 'files', multiple: true, class: 'file-input' });
  const chosenList = h('ul', { class: 'chosen-files', 'aria-label': 'Chosen documents' });
  const engine = h('select', { id: 'engine', name: 'engine' }, ...config.engines.map((value) => h('option', { value, selected: value === config.defaultEngine }, ENGINE_WORDS[value])));
  const languages = config.ocrLangs.includes(config.defaultOcrLang) ? config.ocrLangs : [config.defaultOcrLang, ...config.ocrLangs];
  const ocrLang = h('select', { id: 'ocr-lang', name: 'ocrLang' }, ...languages.map((value) => h('option', { value, selected: value === config.defaultOcrLang }, LANGUAGE_WORDS[value] ?? value)));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  const sending = h('progress', { class: 'upload-progress', max: 100, value: 0, 'aria-label': 'Upload progress', hidden: true });
  const error = h('div', { class: 'form-error', role: 'alert' });

  const drop = h(
    'div',
    { class: 'drop-zone' },
    input,
    h('label', { for: 'files', class: 'drop-label' }, h('span', { class: 'drop-title' }, 'Choose documents'), h('span', { class: 'drop-hint' }, ' or drop them here')),
    h('p', { class: 'drop-limits' }, `Up to ${config.maxBatchFiles} files, ${formatBytes(config.maxUploadBytes)} each. PDF, Word, PowerPoint, Excel, text and images.`),
  );

  const form = h(
    'form',
    { class: 'upload-form', novalidate: true, 'aria-labelledby': 'upload-title' },
    drop,
    chosenList,
    h('div', { class: 'options' }, h('div', { class: 'field' }, h('label', { for: 'engine' }, 'Engine'), engine), h('div', { class: 'field' }, h('label', { for: 'ocr-lang' }, 'OCR language'), ocrLang)),
    h('div', { class: 'actions' }, submit, sending),
    error,
  );

  const showChosen = () => {
    replaceChildren(
      chosenList,
      chosen.map((file, index) => {
        const remove = h('button', { type: 'button', class: 'link-button' }, 'Remove', h('span', { class: 'visually-hidden' }, ` ${file.name}`));
        remove.addEventListener('click', () => {
          chosen = chosen.filter((_, i) => i !== index);
          showChosen();
        });
        return h('li', {}, h('span', { class: 'chosen-name' }, file.name), h('span', { class: 'chosen-size' }, formatBytes(file.size)), remove);
      }),
    );
  };
  const add = (files: FileList | null) => {
    if (!files) return;
    chosen = [...chosen, ...Array.from(files)];
    replaceChildren(error);
    showChosen();
  };

  input.addEventListener('change', () => {
    add(input.files);
    // Cleared so picking the same file again still fires `change`.
    input.value = '';
  });
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('dragging');
    add(event.dataTransfer?.files ?? null);
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (submitting) return;
    const refusal = checkChoice(chosen, config);
    if (refusal) {
      replaceChildren(error, h('p', {}, refusal));
      return;
    }
    submitting = true;
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    submit.textContent = 'Uploading…';
    sending.value = 0;
    sending.hidden = false;
    replaceChildren(error);
    client
      .uploadBatch(chosen, { engine: engine.value as EngineChoice, ocrLang: ocrLang.value }, (fraction) => {
        sending.value = Math.round(fraction * 100);
        submit.textContent = `Uploading… ${sending.value} %`;
      })
      .then((batch) => {
        chosen = [];
        showChosen();
        announce(`Uploaded ${batch.files.length} ${batch.files.length === 1 ? 'file' : 'files'}.`);
        onUploaded(batch);
      })
      .catch((problem: unknown) => {
        const { code, message } = problem instanceof ApiProblem ? problem : { code: 'internal_error', message: String(problem) };
        const { reason, action } = explainFailure(code);
        replaceChildren(error, h('p', {}, h('strong', {}, 'Nothing was uploaded. '), reason, ' ', action), h('p', { class: 'failure-detail' }, `${message} `, h('code', {}, code)));
      })
      .finally(() => {
        sending.hidden = true;
        submitting = false;
        submit.disabled = false;
        submit.removeAttribute('aria-busy');
        submit.textContent = 'Upload';
      });
  });

  return form;
}

/** What the server would refuse anyway, said before sending megabytes. */
function checkChoice(files: readonly File[], config: AppConfig): string | undefined {
  if (files.length === 0) return 'Choose at least one document first.';
  if (files.length > config.maxBatchFiles) return `At most ${config.maxBatchFiles} files go in one batch; remove ${files.length - config.maxBatchFiles}.`;
  const tooLarge = files.find((f) => f.size > config.maxUploadBytes);
  if (tooLarge) return `${tooLarge.name} is ${formatBytes(tooLarge.size)}; the limit is ${formatBytes(config.maxUploadBytes)}.`;
  const empty = files.find((f) => f.size === 0);
  if (empty) return `${empty.name} is empty (0 bytes).`;
  return undefined;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
