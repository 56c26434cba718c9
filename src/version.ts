/** The hub's version, in a module of its own so the CLI can print it without loading the app. */
export const VERSION = '0.1.0';
