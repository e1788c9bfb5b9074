const strict = new TextDecoder('utf-8', { fatal: true });

/** The text of UTF-8 bytes, or null when they are not valid UTF-8 (never silently replaced with U+FFFD). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}
