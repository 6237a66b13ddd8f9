export { SecretBox, SecretError, openSecretBox, secretKeyPath } from './secret-box.js';
export { SecretKeyError, loadOrCreateKey, KEY_BYTES } from './key-file.js';
