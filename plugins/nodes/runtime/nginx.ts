// The runtime's own nginx: its main configuration (listening on the runtime's port, a default server answering
// 404, `include sites/*.conf`), each site's server block (served, or 503 while suspended), and its master.

import type { SiteSpec } from '../contract.ts'
import { type ConfiguredMaster, configuredMaster } from './configured-master.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'

/** What the main configuration needs to know. */
export interface NginxSettings {
  readonly binary: string
  readonly layout: RuntimeLayout
  readonly httpPort: number
  /** The workers' user and group (`www-data`) when the runtime is root; null: they run as the runtime's user. */
  readonly workerUser: string | null
  /** Also listen on IPv6 (`[::]`): when the machine has it. */
  readonly ipv6: boolean
}

/**
 * The access log format: `combined` (so usual tools read it) plus `$bytes_sent`, the whole response with headers,
 * as the last field: what `traffic()` adds up. `escape=default` writes `"` inside fields as `\x22`, so the
 * closing quote before it is always the last one.
 */
export const accessLogFormat =
  '\'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $bytes_sent\''

/** The types nginx names by extension: the common ones of websites (nginx's own file may not be installed). */
const mimeTypes: Record<string, string> = {
  'text/html': 'html htm',
  'text/css': 'css',
  'text/plain': 'txt',
  'text/xml': 'xml',
  'application/javascript': 'js mjs',
  'application/json': 'json map',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/rss+xml': 'rss',
  'application/atom+xml': 'atom',
  'application/wasm': 'wasm',
  'image/png': 'png',
  'image/jpeg': 'jpg jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/svg+xml': 'svg svgz',
  'image/x-icon': 'ico',
  'font/woff': 'woff',
  'font/woff2': 'woff2',
  'font/ttf': 'ttf',
  'font/otf': 'otf',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
}

const listenLines = (port: number, ipv6: boolean, extra = '') => [
  `listen ${port}${extra};`,
  ...(ipv6 ? [`listen [::]:${port}${extra};`] : []),
]

/** `nginx.conf`: one master for every site, with all its files under the data directory. */
export function nginxMainConfig(settings: NginxSettings): string {
  const { nginx } = settings.layout
  const temp = (name: string) => `"${nginx.temp}/${name}"`
  const types = Object.entries(mimeTypes).map(([type, extensions]) => `        ${type} ${extensions};`)
  return `# Managed by Plinth's site runtime: rewritten when the runtime starts. Sites are in sites/*.conf.
${settings.workerUser ? `user ${settings.workerUser} ${settings.workerUser};\n` : ''}daemon off;
worker_processes auto;
pid "${nginx.pid}";
# notice: the runtime reads here when a reload is done.
error_log "${nginx.errorLog}" notice;

events {
    worker_connections 1024;
}

http {
    types {
${types.join('\n')}
    }
    default_type application/octet-stream;
    log_format plinth escape=default ${accessLogFormat};
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    server_tokens off;
    # Behind a proxy or port forward the site's address has no port: nginx's redirects must not add ours.
    port_in_redirect off;
    server_names_hash_bucket_size 256;
    client_max_body_size 64m;
    client_body_temp_path ${temp('client_body')};
    fastcgi_temp_path ${temp('fastcgi')};
    proxy_temp_path ${temp('proxy')};
    uwsgi_temp_path ${temp('uwsgi')};
    scgi_temp_path ${temp('scgi')};

    # Hosts no site has.
    server {
${listenLines(settings.httpPort, settings.ipv6, ' default_server')
  .map((line) => `        ${line}`)
  .join('\n')}
        server_name _;
        return 404;
    }

    include "${nginx.sites}/*.conf";
}
`
}

/** `fastcgi_params`: what PHP-FPM is told of each request (Debian's list, without the `HTTP_PROXY` header). */
export const fastcgiParams = `# Managed by Plinth's site runtime.
fastcgi_param QUERY_STRING $query_string;
fastcgi_param REQUEST_METHOD $request_method;
fastcgi_param CONTENT_TYPE $content_type;
fastcgi_param CONTENT_LENGTH $content_length;
fastcgi_param SCRIPT_NAME $fastcgi_script_name;
fastcgi_param REQUEST_URI $request_uri;
fastcgi_param DOCUMENT_URI $document_uri;
fastcgi_param DOCUMENT_ROOT $document_root;
fastcgi_param SERVER_PROTOCOL $server_protocol;
fastcgi_param REQUEST_SCHEME $scheme;
fastcgi_param HTTPS $https if_not_empty;
fastcgi_param GATEWAY_INTERFACE CGI/1.1;
fastcgi_param SERVER_SOFTWARE nginx;
fastcgi_param REMOTE_ADDR $remote_addr;
fastcgi_param REMOTE_PORT $remote_port;
fastcgi_param SERVER_ADDR $server_addr;
fastcgi_param SERVER_PORT $server_port;
fastcgi_param SERVER_NAME $server_name;
fastcgi_param REDIRECT_STATUS 200;
fastcgi_param HTTP_PROXY "";
`

/** What a server block is made of besides the site. */
export interface ServerBlockOptions {
  readonly layout: RuntimeLayout
  readonly paths: SiteLayout
  readonly port: number
  readonly ipv6: boolean
  readonly state: 'active' | 'suspended'
  /** Whether the site's PHP pool serves `.php` (false when the runtime lays out files only). */
  readonly php: boolean
  /** WordPress routes every path nginx has no file for to `index.php`. */
  readonly app: 'wordpress' | null
}

/** The page a suspended site answers with, status 503. */
const suspendedPage = (domain: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${domain}</title></head><body><h1>${domain}</h1><p>This site is suspended.</p></body></html>`

/**
 * The nginx server block of a site: serving its document root (PHP through its pool), or, suspended, answering
 * every request with 503 and a small page. Every value in it was checked by `checkSiteSpec` and `checkConfigPath`;
 * paths are quoted (a data directory may contain spaces).
 */
export function serverBlock(site: SiteSpec, options: ServerBlockOptions): string {
  const { paths, state } = options
  const quota = site.diskMB === null ? 'unlimited' : `${site.diskMB} MB`
  const header = [
    `# Managed by Plinth for site ${site.id} (${site.handle}, customer ${site.customerId}).`,
    '# Rewritten on every change of the site: do not edit by hand.',
    `# State: ${state}${state === 'suspended' ? ' (every request answers 503)' : ''}`,
    `# Disk quota: ${quota}`,
  ]
  const fallback = options.app === 'wordpress' ? '/index.php?$args' : '=404'
  const body =
    state === 'suspended'
      ? ['    types { }', '    default_type text/html;', `    return 503 '${suspendedPage(site.domain)}';`]
      : [
          `    root "${paths.htdocs}";`,
          '    index index.php index.html;',
          // nginx's workers read every site: a link to another site's files is followed only if it is the target's.
          '    disable_symlinks if_not_owner from=$document_root;',
          '',
          '    location / {',
          `        try_files $uri $uri/ ${fallback};`,
          '    }',
          // .htaccess, .user.ini, .git: never served (.well-known is, for certificates).
          '    location ~ /\\.(?!well-known/) {',
          '        deny all;',
          '    }',
          ...(options.php
            ? [
                '    location ~ \\.php$ {',
                '        try_files $uri =404;',
                `        include "${options.layout.nginx.fastcgiParams}";`,
                '        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;',
                `        fastcgi_pass "unix:${paths.socket}";`,
                '    }',
              ]
            : []),
        ]
  return `${header.join('\n')}
server {
${listenLines(options.port, options.ipv6)
  .map((line) => `    ${line}`)
  .join('\n')}
    server_name ${site.domain};
    access_log "${paths.logs}/access.log" plinth;
    error_log "${paths.logs}/error.log";
${body.join('\n')}
}
`
}

/** The runtime's nginx master: `nginx -p <dataDir>/nginx/ -c <dataDir>/nginx/nginx.conf`, in the foreground. */
export function createNginx(settings: NginxSettings): ConfiguredMaster {
  const { nginx } = settings.layout
  const base = [settings.binary, '-p', nginx.prefix, '-c', nginx.conf, '-e', nginx.errorLog]
  return configuredMaster({
    spec: {
      name: 'nginx',
      argv: base,
      pidFile: nginx.pid,
      recognise: (cmdline) =>
        cmdline.startsWith('nginx: master process') && cmdline.includes(` -c ${nginx.conf} -e `),
      startupLog: nginx.startupLog,
      log: nginx.errorLog,
      ready: /\[notice\] \d+#\d+: start worker processes/,
      failed: /\[emerg\]/,
      reloadSignal: 'SIGHUP',
      stopSignal: 'SIGTERM',
    },
    testArgv: [...base, '-t', '-q'],
    pendingFile: `${nginx.prefix}reload-pending`,
    refusedCode: 'nginx_config_refused',
  })
}
