// Whether text holds a NUL or another control character: names and paths a run writes into files and command lines
// hold none.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const control = /[\u0000-\u001f\u007f]/

/** Whether `text` holds a control character (NUL, newline, escape, delete). */
export const hasControlCharacter = (text: string): boolean => control.test(text)
