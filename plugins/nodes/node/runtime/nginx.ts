// The runtime's own nginx: its main configuration (listening on the runtime's ports, default servers answering 404
// over HTTP and refusing the handshake over HTTPS, `include sites/*.conf`) and its master. Each site's server block
// is in server-block.ts.

import { dirname } from 'node:path'
import { type ConfiguredMaster, configuredMaster } from './configured-master.ts'
import type { RuntimeLayout } from './layout.ts'

/** What the main configuration needs to know. */
export interface NginxSettings {
  readonly binary: string
  readonly layout: RuntimeLayout
  readonly httpPort: number
  /** Where it listens for HTTPS: sites with a certificate, and a default server refusing every other name. */
  readonly httpsPort: number
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

/** `listen` lines for `port` (and on IPv6), with `extra` parameters (` ssl`, ` default_server`). */
export const listenLines = (port: number, ipv6: boolean, extra = '') => [
  `listen ${port}${extra};`,
  ...(ipv6 ? [`listen [::]:${port}${extra};`] : []),
]

/** TLS versions served: nginx 1.22 (Debian 12) would still offer 1.0 and 1.1 by default. */
export const sslProtocols = 'ssl_protocols TLSv1.2 TLSv1.3;'

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
    # What a site's PHP (or application) sends faster than its client reads is buffered here, on the node's disk and
    # in no site's quota, and the worker is freed for the next request: by default up to 1 GiB a request, so a site
    # answering big to clients of its own that never read could fill the node's disk. Past this much nginx stops
    # reading, and the site's worker waits for its client: a site's share is its workers times this.
    fastcgi_max_temp_file_size 8m;
    proxy_max_temp_file_size 8m;

    # Hosts no site has, over plain HTTP.
    server {
${listenLines(settings.httpPort, settings.ipv6, ' default_server')
  .map((line) => `        ${line}`)
  .join('\n')}
        server_name _;
        return 404;
    }

    # Names no site serves over HTTPS (and handshakes without a name): refused during the handshake, so nobody is
    # ever answered with another site's certificate. The handshake starts in this server, hence its protocols.
    server {
${listenLines(settings.httpsPort, settings.ipv6, ' ssl default_server')
  .map((line) => `        ${line}`)
  .join('\n')}
        server_name _;
        ssl_reject_handshake on;
        ${sslProtocols}
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

/** The runtime's nginx master: `nginx -p <dataDir>/nginx/ -c <dataDir>/nginx/nginx.conf`, in the foreground. */
export function createNginx(settings: NginxSettings): ConfiguredMaster {
  const { nginx } = settings.layout
  const base = [settings.binary, '-p', nginx.prefix, '-c', nginx.conf, '-e', nginx.errorLog]
  return configuredMaster({
    spec: {
      name: 'nginx',
      argv: base,
      pidFile: nginx.pid,
      privateDir: dirname(nginx.errorLog),
      recognise: (cmdline) =>
        cmdline.startsWith('nginx: master process') && cmdline.includes(` -c ${nginx.conf} -e `),
      runsAsRuntime: true,
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
