export function SiteCronPage({ id }: { id: string }) { return <p>{id}</p> }
