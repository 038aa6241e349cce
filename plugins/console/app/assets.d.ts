// Style sheets are imported for their effect: the bundler emits them beside the script.
declare module '*.css'
