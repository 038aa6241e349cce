<?php
// What a site's own code reaches: each target tried, its outcome answered in JSON. Run by the site's PHP-FPM pool
// (targets in `?t=`, comma-separated) and by the PHP CLI as the site's user (targets as arguments), as its jobs and
// shell run it. A target is `tcp://host:port` or `unix:///path` (open: connected; what it says first, if anything), `udp://host:port` (open: answered)
// or `http://host:port/|name` (open: a page for the Host `name`, whose first line is said).
$targets = PHP_SAPI === 'cli' ? array_slice($argv, 1) : explode(',', $_GET['t'] ?? '');
$answers = [];
foreach ($targets as $target) {
  $started = microtime(true);
  $said = null;
  $error = '';
  if (str_starts_with($target, 'http://')) {
    [$url, $host] = explode('|', $target, 2);
    $context = stream_context_create(['http' => ['header' => "Host: $host\r\n", 'timeout' => 3, 'ignore_errors' => true]]);
    $page = @file_get_contents($url, false, $context);
    $open = $page !== false;
    $said = $open ? strtok($page, "\n") : null;
    if (!$open) $error = error_get_last()['message'] ?? 'failed';
  } else {
    $socket = @stream_socket_client($target, $code, $error, 3);
    $open = $socket !== false;
    if ($open && str_starts_with($target, 'udp://')) {
      stream_set_timeout($socket, 2);
      @fwrite($socket, "ping\n");
      $said = @fread($socket, 100);
      $open = $said !== false && $said !== '';
      if (!$open) $error = 'no answer';
    } elseif ($open && str_starts_with($target, 'tcp://')) {
      // What a greeter says on connecting (Redis and PostgreSQL say nothing first: null after half a second).
      stream_set_timeout($socket, 0, 500000);
      $said = @fgets($socket);
      if ($said === false) $said = null;
    }
  }
  $answers[$target] = ['open' => $open, 'said' => $said === null ? null : trim($said), 'error' => $error, 'ms' => (int) round((microtime(true) - $started) * 1000)];
}
header('Content-Type: application/json');
echo json_encode($answers);
