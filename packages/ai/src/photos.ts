import { request } from 'undici';

export interface Photo {
  url: string;
  /** Credit as the provider requires it shown: "Photo by X on Pexels". */
  attribution: string;
  source_url: string;
}

/** Stock-photo search; queries are English. */
export interface PhotoSearch {
  find(query: string, signal: AbortSignal): Promise<Photo | null>;
}

async function getJson(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  const res = await request(url, { headers, signal });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`photo search answered ${res.statusCode}`);
  }
  return res.body.json();
}

export function pexels(apiKey: string, baseUrl = 'https://api.pexels.com'): PhotoSearch {
  return {
    async find(query, signal) {
      const body = (await getJson(
        `${baseUrl}/v1/search?per_page=1&query=${encodeURIComponent(query)}`,
        { authorization: apiKey },
        signal,
      )) as {
        photos?: { url: string; photographer: string; src: { medium?: string; large?: string; original?: string } }[];
      };
      const photo = body.photos?.[0];
      const url = photo?.src.large ?? photo?.src.medium ?? photo?.src.original;
      return photo && url
        ? { url, attribution: `Photo by ${photo.photographer} on Pexels`, source_url: photo.url }
        : null;
    },
  };
}

export function unsplash(accessKey: string, baseUrl = 'https://api.unsplash.com'): PhotoSearch {
  return {
    async find(query, signal) {
      const body = (await getJson(
        `${baseUrl}/search/photos?per_page=1&query=${encodeURIComponent(query)}`,
        { authorization: `Client-ID ${accessKey}` },
        signal,
      )) as {
        results?: { urls: { regular?: string; small?: string }; user: { name: string }; links: { html: string } }[];
      };
      const photo = body.results?.[0];
      const url = photo?.urls.regular ?? photo?.urls.small;
      return photo && url
        ? { url, attribution: `Photo by ${photo.user.name} on Unsplash`, source_url: photo.links.html }
        : null;
    },
  };
}

/**
 * Looks all queries up at once within a time budget. A failure, a slow answer or no provider at all gives null for
 * that query and never fails the caller.
 */
export async function findPhotos(
  search: PhotoSearch | null,
  queries: string[],
  budgetMs: number,
): Promise<(Photo | null)[]> {
  if (!search || queries.length === 0) return queries.map(() => null);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), budgetMs);
  try {
    return await Promise.all(queries.map((q) => search.find(q, controller.signal).catch(() => null)));
  } finally {
    clearTimeout(timer);
  }
}
