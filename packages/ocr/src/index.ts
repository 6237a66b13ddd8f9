export { OcrEngine, type OcrEngineOptions, type RecognizeOptions } from './engine.js';
export type { OcrPage, OcrLine, OcrWord, PixelBox } from './page-result.js';
export type { OcrImage, GrayPixels } from './image-input.js';
export { pixelBoxToPoints, type PointBox } from './coordinates.js';
export { OcrError, type OcrErrorCode } from './errors.js';
export { DEBIAN_TESSDATA_DIR, resolveLanguageData, type LanguageData } from './tessdata.js';
export { parseLanguages, type LanguageSpec } from './languages.js';
export { TESSERACT_VERSION } from './version.js';
