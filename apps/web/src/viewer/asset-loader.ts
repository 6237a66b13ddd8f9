import type { ApiClient } from '../api/client.js';
import type { ServedPackage } from '../api/types.js';

/**
 * Images of a package (figures, page images) as object URLs: fetched with the API key, since an
 * `<img src>` cannot carry one. `dispose()` revokes them when the viewer is left.
 */
export class AssetLoader {
  private readonly urls: string[] = [];
  private disposed = false;

  constructor(
    private readonly client: ApiClient,
    private readonly pkg: ServedPackage,
  ) {}

  /** An `<img>` that fills in when its bytes arrive; an asset the package lacks gets a note instead. */
  image(sha256: string, alt: string, className: string): HTMLElement {
    const asset = this.pkg.assets.find((a) => a.sha256 === sha256);
    if (!asset) return note(`Image not stored (${alt || 'no description'}).`);
    const img = document.createElement('img');
    img.alt = alt;
    img.className = className;
    img.decoding = 'async';
    // Width and height reserve the space, so the outline's jumps land where they should.
    if (asset.width && asset.height) {
      img.width = asset.width;
      img.height = asset.height;
    }
    this.client
      .asset(asset.url)
      .then((blob) => {
        if (this.disposed) return;
        const url = URL.createObjectURL(blob);
        this.urls.push(url);
        img.src = url;
      })
      .catch((error: unknown) => {
        img.replaceWith(note(`The image could not be loaded (${error instanceof Error ? error.message : String(error)}).`));
      });
    return img;
  }

  dispose(): void {
    this.disposed = true;
    for (const url of this.urls.splice(0)) URL.revokeObjectURL(url);
  }
}

function note(text: string): HTMLElement {
  const p = document.createElement('p');
  p.className = 'asset-missing';
  p.textContent = text;
  return p;
}
