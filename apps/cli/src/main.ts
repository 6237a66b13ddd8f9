#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';

/**
 * `readpack`: parse documents against a Readpack server, and operate a deployment.
 * The ops commands load Redis and BullMQ only when they run, so `readpack parse` starts fast and
 * needs nothing but a server URL.
 */
const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const program = new Command('readpack').description('Readpack: documents in, reading packages out.').version(version);

program
  .command('parse')
  .description('upload files, follow them to the end, write their reading packages')
  .argument('<files...>', 'documents to parse')
  .option('--server <url>', 'Readpack server', process.env.READPACK_SERVER ?? 'http://127.0.0.1:3000')
  .option('--key <key>', 'API key (or READPACK_API_KEY)', process.env.READPACK_API_KEY)
  .addOption(new Option('--engine <engine>', 'parsing engine').choices(['local', 'mineru', 'auto']))
  .option('--lang <lang>', 'OCR languages, tesseract codes joined by + (e.g. eng+chi_sim)')
  .option('--out <dir>', 'where packages are written', '.')
  .addOption(new Option('--format <format>', 'json (the package) or md (its Markdown)').choices(['json', 'md']).default('json'))
  .action(async (files: string[], options: { server: string; key?: string; engine?: string; lang?: string; out: string; format: 'json' | 'md' }) => {
    const { parseFiles } = await import('./parse/command.js');
    process.exitCode = await parseFiles(files, options);
  });

const ops = program.command('ops').description('operate a deployment (REDIS_URL, or the private Redis of `npm start` under DATA_DIR)');
const dlq = ops.command('dlq').description('dead-letter queues');
dlq
  .command('list')
  .argument('[stage]', 'one stage, or webhook (default: all)')
  .description('parked dead letters')
  .action(async (stage?: string) => {
    const [{ withOps }, { listDeadLetters, stagesFrom }] = await Promise.all([import('./ops/connection.js'), import('./ops/dlq.js')]);
    process.exitCode = await withOps((ctx) => listDeadLetters(ctx, stagesFrom(stage)));
  });
dlq
  .command('replay')
  .argument('<stage>', 'the stage whose DLQ holds the entry, or webhook')
  .argument('<target>', 'a job id, or --all')
  .description('replay parked entries (as Bull Board\'s Retry does)')
  .allowUnknownOption()
  .action(async (stage: string, target: string) => {
    const [{ withOps }, { replayDeadLetters, stagesFrom }] = await Promise.all([import('./ops/connection.js'), import('./ops/dlq.js')]);
    const [queue] = stagesFrom(stage);
    if (!queue) throw new InvalidArgumentError(`unknown stage ${stage}`);
    process.exitCode = await withOps((ctx) => replayDeadLetters(ctx, queue, target));
  });
ops
  .command('schedulers')
  .description('periodic tasks; flags duplicates and missing ones (exit 1)')
  .action(async () => {
    const [{ withOps }, { schedulerRows }, { printTable }] = await Promise.all([import('./ops/connection.js'), import('./ops/schedulers.js'), import('./ops/table.js')]);
    process.exitCode = await withOps(async (ctx) => {
      const rows = await schedulerRows(ctx);
      printTable([['id', 'every (ms)', 'next run', 'flag'], ...rows.map((r) => [r.id, r.every, r.next, r.flag])]);
      return rows.some((r) => r.flag) ? 1 : 0;
    });
  });
ops
  .command('failures')
  .description('failed jobs counted by code, with whether each code is dead-lettered')
  .action(async () => {
    const [{ withOps }, { failures }] = await Promise.all([import('./ops/connection.js'), import('./ops/failures.js')]);
    process.exitCode = await withOps(failures);
  });
ops
  .command('doctor')
  .description('checks Redis settings, schedulers, consumers, stuck jobs and dead letters (exit 1 on a problem)')
  .action(async () => {
    const [{ withOps }, { doctor }] = await Promise.all([import('./ops/connection.js'), import('./ops/doctor.js')]);
    process.exitCode = await withOps(doctor);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
