import { createHash } from 'node:crypto';
import type { DishVision, ProductVision } from './schemas.ts';

export interface ImageInput {
  contentType: string;
  data: Buffer;
}

/** Photo recognition. Results carry `model` (`offline` for the stand-in). */
export interface VisionModel {
  recognizeDish(images: ImageInput[], signal?: AbortSignal): Promise<DishVision & { model: string }>;
  recognizeProducts(
    image: ImageInput,
    jobType: 'receipt' | 'products',
    signal?: AbortSignal,
  ): Promise<ProductVision & { model: string }>;
}

/** The names offline vision picks from: English names of catalog dishes, curated products with their unit. */
export interface VisionCatalog {
  visionCatalog(): Promise<{ dishes: string[]; products: { name: string; unit: string }[] }>;
}

const MEASURED = new Set(['g', 'ml']);

/** Deterministic pseudo-random numbers from an image's bytes. */
function digits(image: ImageInput): number[] {
  return [...createHash('sha256').update(image.data).digest()];
}

/**
 * The offline stand-in for vision: the same photo always gives the same answer, picked from the catalog by the
 * photo's hash. It recognises nothing; results say `model: "offline"` so nobody mistakes them for recognition.
 */
export function offlineVision(catalog: VisionCatalog): VisionModel {
  // The catalog's names are read once per process: they do not change while it runs.
  let cached: ReturnType<VisionCatalog['visionCatalog']> | undefined;
  const names = () => (cached ??= catalog.visionCatalog());
  return {
    async recognizeDish(images) {
      const { dishes } = await names();
      const d = digits(images[0]!);
      if (dishes.length === 0) return { dishes: [], model: 'offline' };
      return {
        dishes: [
          { name: dishes[d[0]! % dishes.length]!, portion_g: 200 + (d[1]! % 200), portions: 1, confidence: 0.5 },
        ],
        model: 'offline',
      };
    },
    async recognizeProducts(image, jobType) {
      const { products } = await names();
      const d = digits(image);
      const count = products.length ? 1 + (d[0]! % 3) : 0;
      return {
        items: Array.from({ length: count }, (_, i) => {
          const p = products[(d[1 + i]! * 7 + i) % products.length]!;
          return {
            name: p.name,
            // Grams and millilitres in packs of 100-900, anything counted 1-4: what a receipt line says.
            quantity: MEASURED.has(p.unit) ? 100 * (1 + (d[5 + i]! % 9)) : 1 + (d[5 + i]! % 4),
            unit: p.unit as ProductVision['items'][number]['unit'],
            price: jobType === 'receipt' ? Math.round(50 + d[9 + i]! * 2) / 10 : null,
            confidence: 0.5,
          };
        }),
        model: 'offline',
      };
    },
  };
}
