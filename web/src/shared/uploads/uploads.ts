/**
 * File uploads of the console: the restriction checks with the spec's messages (SPEC §5, §8)
 * and the two upload flows of the API, both ending in a PUT of the bytes to a signed URL.
 */
import { presignedUrlResponse, storedObjectResponse, uploadLimits, uploadUrlResponse } from '@farm/contracts';
import { ApiError, apiRequest } from '../api';

/** Errors beyond this many are summed up in one line, as the spec's upload component does. */
export const MAX_SHOWN_UPLOAD_ERRORS = 4;

export interface UploadRestrictions {
  /** How many files may be held in total, counting those already uploaded. */
  maxFiles?: number;
  maxFileSize?: number;
  /** MIME patterns such as 'image/*' or exact types such as 'image/png'. */
  allowedTypes?: readonly string[];
}

export const imageRestrictions: UploadRestrictions = {
  maxFileSize: uploadLimits.maxFileSize,
  allowedTypes: ['image/*'],
};

/** Sizes read like '10 MB' or '1.5 KB' (1024-based, one decimal under 10). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
  if (bytes <= 0) return '0 B';
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1);
  const value = bytes / 1024 ** exponent;
  const unit = units[exponent] ?? 'B';
  if (value >= 10 || value % 1 === 0) return `${value.toFixed(0)} ${unit}`;
  return `${value.toFixed(1)} ${unit}`;
}

export const uploadMessages = {
  tooMany: (n: number) => `You can only upload ${n} file(s)`,
  tooLarge: (file: string, size: number) => `${file} exceeds maximum allowed size of ${formatBytes(size)}`,
  wrongType: (types: readonly string[]) => `You can only upload: ${types.join(', ')}`,
  failed: (file: string) => `Failed to upload ${file}`,
  additional: (count: number) => `${count} additional restrictions were not fulfilled`,
} as const;

function typeAllowed(type: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) => (pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern));
}

export interface FileCheck<F extends File> {
  accepted: F[];
  errors: string[];
}

/**
 * Splits picked files into those that may be uploaded and the spec's messages for the rest.
 * `alreadyHeld` counts files uploaded earlier, so a limit of 5 holds across several picks.
 */
export function checkFiles<F extends File>(files: readonly F[], restrictions: UploadRestrictions, alreadyHeld = 0): FileCheck<F> {
  const accepted: F[] = [];
  const errors: string[] = [];
  const { maxFiles, maxFileSize, allowedTypes } = restrictions;
  for (const file of files) {
    if (allowedTypes && !typeAllowed(file.type, allowedTypes)) {
      errors.push(uploadMessages.wrongType(allowedTypes));
      continue;
    }
    if (maxFileSize !== undefined && file.size > maxFileSize) {
      errors.push(uploadMessages.tooLarge(file.name, maxFileSize));
      continue;
    }
    accepted.push(file);
  }
  if (maxFiles !== undefined && alreadyHeld + accepted.length > maxFiles) {
    const room = Math.max(0, maxFiles - alreadyHeld);
    accepted.splice(room);
    errors.push(uploadMessages.tooMany(maxFiles));
  }
  return { accepted, errors: [...new Set(errors)] };
}

/** One message for a toast: at most four lines, then a count of the rest. */
export function summariseErrors(errors: readonly string[]): string {
  const shown = errors.slice(0, MAX_SHOWN_UPLOAD_ERRORS);
  const rest = errors.length - shown.length;
  return rest > 0 ? [...shown, uploadMessages.additional(rest)].join('\n') : shown.join('\n');
}

async function putBytes(url: string, file: File): Promise<unknown> {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { 'Content-Type': file.type || 'application/octet-stream' },
    body: file,
  });
  if (!response.ok) throw new ApiError(response.status, (await response.text()) || response.statusText);
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Without an answer naming the object, its path is the signed URL without the signature. */
function pathOf(url: string, answer: unknown): string {
  const parsed = storedObjectResponse.safeParse(answer);
  return parsed.success ? parsed.data.objectPath : (url.split('?')[0] ?? url);
}

export interface UploadedObject {
  /** Where the bytes were sent (the signed URL). */
  uploadUrl: string;
  /** Where the object is read from afterwards (GET, cookie auth). */
  objectPath: string;
}

/** POST /api/objects/upload → {url}; PUT the bytes there → {objectPath}. */
export async function uploadObject(file: File): Promise<UploadedObject> {
  const { url } = uploadUrlResponse.parse(await apiRequest('/api/objects/upload', { method: 'POST', body: {} }));
  const answer = await putBytes(url, file);
  return { uploadUrl: url, objectPath: pathOf(url, answer) };
}

/** POST /api/object-storage/presigned-url {directory, filename} → {presignedUrl, objectPath}; PUT the bytes. */
export async function uploadPrivateObject(file: File): Promise<UploadedObject> {
  const { presignedUrl, objectPath } = presignedUrlResponse.parse(
    await apiRequest('/api/object-storage/presigned-url', {
      method: 'POST',
      body: { directory: '.private', filename: file.name },
    }),
  );
  await putBytes(presignedUrl, file);
  return { uploadUrl: presignedUrl, objectPath };
}

/** Uploads one image and registers it as a campaign reference image; answers its stored path. */
export async function uploadCampaignImage(file: File): Promise<string> {
  const uploaded = await uploadObject(file);
  const { objectPath } = storedObjectResponse.parse(await apiRequest('/api/campaign-images', { method: 'PUT', body: { imageURL: uploaded.uploadUrl } }));
  return objectPath;
}

export interface UploadedFile {
  name: string;
  path: string;
}

export interface UploadOutcome {
  uploaded: UploadedFile[];
  /** The spec's 'Failed to upload {file}' for each file that did not make it. */
  failed: string[];
}

/** Uploads files one by one so that one failure does not lose the others; names the ones that failed. */
export async function uploadEach(files: readonly File[], upload: (file: File) => Promise<string>): Promise<UploadOutcome> {
  const uploaded: UploadedFile[] = [];
  const failed: string[] = [];
  for (const file of files) {
    try {
      uploaded.push({ name: file.name, path: await upload(file) });
    } catch {
      failed.push(uploadMessages.failed(file.name));
    }
  }
  return { uploaded, failed };
}

/** The object path of an uploaded file (the generic flow, for post media). */
export async function uploadObjectPath(file: File): Promise<string> {
  return (await uploadObject(file)).objectPath;
}

/** Reads a picked image as a data URL (the account profile picture travels that way). */
export function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(uploadMessages.failed(file.name)));
    reader.readAsDataURL(file);
  });
}
