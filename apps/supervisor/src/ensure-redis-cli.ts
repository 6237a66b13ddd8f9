import { ensureForPretest, testRequirements } from './system-packages.js';

/**
 * `npm test`'s pretest: makes sure the Debian packages the suite needs are on the machine before
 * Jest runs (and fails in dozens of files at once), installing them with apt-get as root:
 * redis-server (a throwaway server per run; not when REDIS_URL points at a Redis),
 * tesseract-ocr-eng, -chi-sim, -jpn, -chi-tra, -kor and -osd (OCR language data in Debian's
 * directory), tesseract-ocr (the native engine), fonts-noto-cjk (Japanese and Korean faces),
 * fonts-wqy-zenhei + fontconfig (a Chinese font), LibreOffice (the convert stage), poppler-utils and
 * poppler-data (pdftotext, the PDF tests' reference) and chromium (the web app's browser test). See
 * testRequirements in system-packages.ts.
 * The file keeps its historical name: package.json's pretest runs dist/ensure-redis-cli.js.
 */
await ensureForPretest('The test suite', testRequirements(process.env));
