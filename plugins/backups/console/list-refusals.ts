// The refusals of a list the form sends (a restore's paths, its databases): of the list itself (`body.files`) and
// of its items, by place (`body.files.1`, or `body.files[1]`), each said with the item it is about, so the field
// shows which path or database the API refused.

/** One `errors[]` item of a refusal. */
interface Located {
  readonly location: string
  readonly message: string
}

/** What the field shows for `body.<name>` and its items; `itemText(index)` names an item by its place. */
export function listRefusals(
  errors: readonly Located[],
  name: string,
  itemText: (index: number) => string,
): string[] {
  const whole = `body.${name}`
  return errors.flatMap((error) => {
    if (error.location === whole) return [error.message]
    const item = /^(?:\.(\d+)|\[(\d+)\])$/.exec(error.location.slice(whole.length))
    if (!error.location.startsWith(whole) || !item) return []
    return [`${itemText(Number(item[1] ?? item[2]))}: ${error.message}`]
  })
}
