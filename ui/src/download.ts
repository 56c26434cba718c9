/**
 * Exports the hub streams (CSV, JSON Lines) are fetched through the session's typed client, so
 * that a key or a session travels in a header and never in a URL, and then handed to the browser
 * as a file from a Blob.
 */

/** Hands `blob` to the browser as a download named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference by now; the object URL only has to outlive the click.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The file name the hub gave an export (`content-disposition`), else `fallback`. */
export function attachmentName(response: Response, fallback: string): string {
  return /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
}
