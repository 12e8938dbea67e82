import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkFiles, formatBytes, imageRestrictions, summariseErrors, uploadCampaignImage, uploadEach, uploadObject, uploadPrivateObject } from './uploads';

function file(name: string, type: string, size = 10): File {
  const result = new File(['x'], name, { type });
  Object.defineProperty(result, 'size', { value: size });
  return result;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('formatBytes', () => {
  it('reads the default cap as 10 MB', () => {
    expect(formatBytes(10_485_760)).toBe('10 MB');
  });

  it('keeps one decimal under ten units', () => {
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
  });
});

describe('checkFiles', () => {
  const restrictions = { ...imageRestrictions, maxFiles: 5 };

  it('accepts images within the limits', () => {
    const { accepted, errors } = checkFiles([file('a.png', 'image/png')], restrictions);
    expect(accepted).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('refuses other types with the spec message', () => {
    const { accepted, errors } = checkFiles([file('notes.pdf', 'application/pdf')], restrictions);
    expect(accepted).toEqual([]);
    expect(errors).toEqual(['You can only upload: image/*']);
  });

  it('refuses files above the size cap, naming them', () => {
    const { errors } = checkFiles([file('huge.jpg', 'image/jpeg', 10_485_761)], restrictions);
    expect(errors).toEqual(['huge.jpg exceeds maximum allowed size of 10 MB']);
  });

  it('counts the files already held against the limit', () => {
    const picked = [file('1.png', 'image/png'), file('2.png', 'image/png'), file('3.png', 'image/png')];
    const { accepted, errors } = checkFiles(picked, restrictions, 3);
    expect(accepted.map((f) => f.name)).toEqual(['1.png', '2.png']);
    expect(errors).toEqual(['You can only upload 5 file(s)']);
  });
});

describe('summariseErrors', () => {
  it('shows at most four messages and counts the rest', () => {
    const text = summariseErrors(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(text.split('\n')).toEqual(['a', 'b', 'c', 'd', '2 additional restrictions were not fulfilled']);
  });
});

describe('upload flows', () => {
  it('asks for a URL, then PUTs the bytes with their type', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json({ url: '/api/objects/abc?expires=1&signature=s' }))
      .mockResolvedValueOnce(json({ objectPath: '/api/objects/abc' }));
    vi.stubGlobal('fetch', fetchMock);

    const image = file('cat.png', 'image/png');
    const result = await uploadObject(image);

    expect(result).toEqual({ uploadUrl: '/api/objects/abc?expires=1&signature=s', objectPath: '/api/objects/abc' });
    const [firstUrl, firstInit] = fetchMock.mock.calls[0] ?? [];
    expect(firstUrl).toBe('/api/objects/upload');
    expect(firstInit?.method).toBe('POST');
    expect(firstInit?.body).toBe('{}');
    const [secondUrl, secondInit] = fetchMock.mock.calls[1] ?? [];
    expect(secondUrl).toBe('/api/objects/abc?expires=1&signature=s');
    expect(secondInit?.method).toBe('PUT');
    expect(secondInit?.body).toBe(image);
    expect(new Headers(secondInit?.headers).get('Content-Type')).toBe('image/png');
  });

  it('registers a campaign image with the upload URL and answers its stored path', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json({ url: '/api/objects/abc?expires=1&signature=s' }))
      .mockResolvedValueOnce(json({ objectPath: '/api/objects/abc' }))
      .mockResolvedValueOnce(json({ objectPath: '/api/objects/abc' }));
    vi.stubGlobal('fetch', fetchMock);

    await expect(uploadCampaignImage(file('cat.png', 'image/png'))).resolves.toBe('/api/objects/abc');
    const [url, init] = fetchMock.mock.calls[2] ?? [];
    expect(url).toBe('/api/campaign-images');
    expect(init?.method).toBe('PUT');
    expect(JSON.parse(String(init?.body))).toEqual({ imageURL: '/api/objects/abc?expires=1&signature=s' });
  });

  it('uses the presigned flow for private images', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json({ presignedUrl: '/api/objects/p?expires=1&signature=s', objectPath: '/api/objects/p' }))
      .mockResolvedValueOnce(json({ objectPath: '/api/objects/p' }));
    vi.stubGlobal('fetch', fetchMock);

    await expect(uploadPrivateObject(file('me.jpg', 'image/jpeg'))).resolves.toMatchObject({ objectPath: '/api/objects/p' });
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/api/object-storage/presigned-url');
    expect(JSON.parse(String(init?.body))).toEqual({ directory: '.private', filename: 'me.jpg' });
  });

  it('names each file that failed and keeps the others', async () => {
    const upload = vi.fn(async (f: File) => {
      if (f.name === 'bad.png') throw new Error('boom');
      return `/api/objects/${f.name}`;
    });
    const outcome = await uploadEach([file('good.png', 'image/png'), file('bad.png', 'image/png')], upload);
    expect(outcome.uploaded).toEqual([{ name: 'good.png', path: '/api/objects/good.png' }]);
    expect(outcome.failed).toEqual(['Failed to upload bad.png']);
  });
});
