import type { ApiProblem } from '../api/client.js';
import type { JobStatusView } from '../api/types.js';
import { announce } from '../ui/announcer.js';
import { h, replaceChildren } from '../ui/dom.js';
import { explainFailure } from './failure-reasons.js';
import { forwardOnly, progressDisplay } from './job-progress.js';

/**
 * One file of a batch: its name, a bar that moves with the stages and pages, and then either a
 * link to the viewer or the failure in words. The element outlives page changes (the upload page
 * re-attaches it), so its state is kept on the row rather than recomputed.
 */
export class JobRow {
  readonly element: HTMLLIElement;
  private readonly bar: HTMLProgressElement;
  private readonly state: HTMLElement;
  private readonly outcome: HTMLElement;
  private percent = 0;
  private done = false;

  constructor(
    readonly jobId: string,
    readonly name: string,
  ) {
    const nameId = `job-name-${jobId}`;
    this.state = h('span', { class: 'job-state' }, 'Uploaded · 0 %');
    this.bar = h('progress', { max: 100, value: 0, 'aria-labelledby': nameId, 'aria-valuetext': '0 %' }, '0 %');
    this.outcome = h('div', { class: 'job-outcome' });
    this.element = h(
      'li',
      { class: 'job', 'data-job-id': jobId, 'data-status': 'queued' },
      h('div', { class: 'job-head' }, h('span', { class: 'job-name', id: nameId }, name), this.state),
      this.bar,
      this.outcome,
    );
  }

  /** Done or failed: nothing more will change. */
  get finished(): boolean {
    return this.done;
  }

  update(view: JobStatusView): void {
    if (this.done) return;
    const display = progressDisplay(view);
    this.percent = forwardOnly(this.percent, display.percent);
    this.bar.value = this.percent;
    this.bar.textContent = `${this.percent} %`;
    this.bar.setAttribute('aria-valuetext', `${display.label}, ${this.percent} %`);
    this.state.textContent = `${display.label} · ${this.percent} %`;
    this.element.dataset.status = view.status;
    this.clearWarning();
    if (view.status === 'done') this.showDone();
    else if (view.status === 'failed') this.showFailure(view.error?.code ?? 'internal_error', view.error?.message ?? '');
  }

  /** A problem reading the status (not the job's own failure): shown until the next good answer. */
  problem(problem: ApiProblem): void {
    if (this.done) return;
    if (problem.code === 'job_not_found') {
      this.element.dataset.status = 'expired';
      this.showFailure(problem.code, problem.message);
      return;
    }
    const { reason, action } = explainFailure(problem.code);
    replaceChildren(this.outcome, h('p', { class: 'job-warning' }, `${reason} ${action}`));
  }

  /** The next good status answer replaces a warning shown by `problem`. */
  private clearWarning(): void {
    if (this.outcome.querySelector('.job-warning')) replaceChildren(this.outcome);
  }

  private showDone(): void {
    this.done = true;
    replaceChildren(this.outcome, h('a', { class: 'job-open', href: `#/jobs/${encodeURIComponent(this.jobId)}` }, 'Open ', h('span', { class: 'visually-hidden' }, `${this.name} `), 'in the viewer'));
    announce(`${this.name} is ready.`);
  }

  private showFailure(code: string, message: string): void {
    this.done = true;
    const { reason, action } = explainFailure(code);
    this.state.textContent = 'Failed';
    this.bar.classList.add('failed');
    replaceChildren(
      this.outcome,
      h(
        'div',
        { class: 'job-failure' },
        h('p', { class: 'failure-reason' }, h('strong', {}, 'Could not read this file. '), reason),
        h('p', { class: 'failure-action' }, h('strong', {}, 'What to do: '), action),
        h('p', { class: 'failure-detail' }, message ? `${message} ` : '', h('code', {}, code)),
      ),
    );
    announce(`${this.name} failed: ${reason}`);
  }
}
