/** Text that a counterparty chose, made safe to print in a terminal or quote in an e-mail. */

/** C0 and C1 control characters (line breaks, escape sequences, bells, …). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Escapes every control character as `\uXXXX`: none can move a cursor or start a line of its own. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
