<?php
// Plinth's WordPress runner: loads a site's WordPress as the site's user and runs exactly one operation of an
// allowlist, read as JSON on stdin, answering JSON on stdout after `PLINTH-ANSWER-<nonce> ` (WordPress may print before it; the nonce is new each call).
// The node service (runner.ts) passes this file to `php -r` without its opening tag, so nothing is written on the
// node, with the site's open_basedir and temporary folder. WordPress loads without the site's plugins and theme
// code (as `wp --skip-plugins --skip-themes` does), so a broken plugin cannot stop its own deactivation (must-use plugins
// and drop-ins such as object-cache.php still load, as they do under WP-CLI); it makes no
// HTTP requests, runs no cron and ignores maintenance mode.

error_reporting(E_ALL & ~E_DEPRECATED & ~E_NOTICE & ~E_WARNING);
$plinth_in = json_decode((string) stream_get_contents(STDIN), true);
if (!is_array($plinth_in) || !is_string($plinth_in['op'] ?? null)) {
    fwrite(STDERR, "The runner needs a JSON operation on stdin\n");
    exit(2);
}

// The answer's marker carries the call's nonce (given on stdin, new each call): kept in plinth_out alone and taken out
// of $plinth_in before WordPress loads, so a line the site's code prints (a mu-plugin, a drop-in) is not the answer.
function plinth_out(?array $answer, ?string $nonce = null)
{
    static $marker = null;
    if ($marker === null) {
        $marker = 'PLINTH-ANSWER-' . (string) $nonce . ' ';
        return;
    }
    while (ob_get_level() > 0) ob_end_flush();
    echo "\n" . $marker . json_encode($answer, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE) . "\n";
    exit(0);
}
if (!is_string($plinth_in['nonce'] ?? null) || !preg_match('/^[0-9a-f]{32}$/', $plinth_in['nonce'])) {
    fwrite(STDERR, "The runner needs the call's nonce\n");
    exit(2);
}
plinth_out(null, $plinth_in['nonce']);
unset($plinth_in['nonce']);
function plinth_ok($data) { plinth_out(['ok' => $data]); }
function plinth_refuse(string $code, string $message, array $details = [])
{
    plinth_out(['refused' => ['code' => $code, 'message' => $message, 'details' => (object) $details]]);
}

if (!is_file(getcwd() . '/wp-load.php') || !is_file(getcwd() . '/wp-config.php')) {
    plinth_refuse('wordpress_not_installed', 'The site has no WordPress installed in /htdocs');
}

// Hooks in place before WordPress loads (it turns $wp_filter into its hooks, as WP-CLI relies on).
function plinth_false() { return false; }
function plinth_no_plugins() { return []; }
function plinth_plugins_loaded() { remove_filter('option_active_plugins', 'plinth_no_plugins'); }
function plinth_skip_theme() { wp_installing(true); }
function plinth_theme_loaded() { wp_installing(false); }
function plinth_direct() { return 'direct'; }
function plinth_no_cron() { remove_action('init', 'wp_cron'); }
function plinth_offline() { return new WP_Error('http_request_blocked', 'The Plinth runner makes no HTTP requests.'); }
$plinth_hook = fn (string $function, int $args = 1) => [['function' => $function, 'accepted_args' => $args]];
$GLOBALS['wp_filter'] = [
    'enable_maintenance_mode' => [10 => $plinth_hook('plinth_false')],
    'option_active_plugins' => [10 => $plinth_hook('plinth_no_plugins')],
    'plugins_loaded' => [PHP_INT_MIN => $plinth_hook('plinth_plugins_loaded', 0)],
    'setup_theme' => [PHP_INT_MAX => $plinth_hook('plinth_skip_theme', 0)],
    'after_setup_theme' => [PHP_INT_MIN => $plinth_hook('plinth_theme_loaded', 0)],
    'filesystem_method' => [PHP_INT_MAX => $plinth_hook('plinth_direct', 0)],
    'init' => [PHP_INT_MIN => $plinth_hook('plinth_no_cron', 0)],
    'pre_http_request' => [PHP_INT_MAX => $plinth_hook('plinth_offline', 0)],
];
$_SERVER['HTTP_HOST'] = $plinth_in['domain'] ?? 'localhost';
$_SERVER['SERVER_NAME'] = $_SERVER['HTTP_HOST'];
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';

require getcwd() . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
require_once ABSPATH . 'wp-admin/includes/theme.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
require_once ABSPATH . 'wp-admin/includes/misc.php';
require_once ABSPATH . 'wp-admin/includes/user.php';

/** The plugin's slug: its folder, or its file's name for a single-file plugin (`hello.php` is `hello`). */
function plinth_plugin_slug(string $file): string
{
    return strpos($file, '/') !== false ? dirname($file) : basename($file, '.php');
}

function plinth_plugin_item(string $file, array $data): array
{
    return [
        'slug' => plinth_plugin_slug($file),
        'file' => $file,
        'name' => (string) ($data['Name'] ?? ''),
        'version' => (string) ($data['Version'] ?? ''),
        'status' => is_plugin_active($file) ? 'active' : 'inactive',
        'description' => wp_strip_all_tags((string) ($data['Description'] ?? '')),
    ];
}

/** The installed plugin `$slug`: its file and headers, or a refusal. */
function plinth_plugin(string $slug): array
{
    wp_clean_plugins_cache(false);
    foreach (get_plugins() as $file => $data) {
        if (plinth_plugin_slug($file) === $slug) return [$file, $data];
    }
    plinth_refuse('wordpress_plugin_not_found', "The site has no plugin $slug", ['slug' => $slug]);
}

function plinth_theme_item(WP_Theme $theme): array
{
    $stylesheet = $theme->get_stylesheet();
    $active = get_stylesheet();
    $status = $stylesheet === $active ? 'active' : ($stylesheet === get_template() ? 'parent' : 'inactive');
    return [
        'slug' => $stylesheet,
        'name' => (string) $theme->get('Name'),
        'version' => (string) $theme->get('Version'),
        'status' => $status,
        'parent' => $theme->get_template() !== $stylesheet ? $theme->get_template() : null,
    ];
}

function plinth_theme(string $slug): WP_Theme
{
    wp_clean_themes_cache(false);
    $theme = wp_get_theme($slug);
    if (!$theme->exists()) plinth_refuse('wordpress_theme_not_found', "The site has no theme $slug", ['slug' => $slug]);
    return $theme;
}

function plinth_user_item(WP_User $user): array
{
    return [
        'id' => (int) $user->ID,
        'login' => $user->user_login,
        'email' => $user->user_email,
        'displayName' => $user->display_name,
        'roles' => array_values($user->roles),
        'registeredAt' => gmdate('Y-m-d\TH:i:s.000\Z', strtotime($user->user_registered . ' UTC')),
    ];
}

function plinth_user(int $id): WP_User
{
    $user = get_user_by('id', $id);
    if (!$user) plinth_refuse('wordpress_user_not_found', "The site has no user $id", ['userId' => $id]);
    return $user;
}

/** Whether WordPress's maintenance mode is on: `.maintenance` there and not older than WordPress's 10 minutes. */
function plinth_maintenance(): bool
{
    $file = ABSPATH . '.maintenance';
    if (!is_file($file)) return false;
    $upgrading = (function () use ($file) { include $file; return $upgrading ?? 0; })();
    return (time() - (int) $upgrading) < 10 * MINUTE_IN_SECONDS;
}

function plinth_core(): array
{
    global $wp_version, $wp_db_version;
    return [
        'version' => $wp_version,
        'databaseVersion' => (int) $wp_db_version,
        'siteUrl' => (string) get_option('home'),
        'title' => (string) get_option('blogname'),
        'maintenance' => plinth_maintenance(),
    ];
}

/**
 * The entries of the zip at `$path`, read from its central directory, each checked: no NUL, no absolute name, no
 * `..` segment, no symbolic link (Unix mode in the external attributes), no encryption, no ZIP64.
 */
function plinth_check_zip(string $path, string $shown): void
{
    $invalid = fn (string $why) => plinth_refuse('invalid_wordpress_package', "$shown is not a usable zip archive: $why", ['path' => $shown]);
    $size = @filesize($path);
    $handle = @fopen($path, 'rb');
    if ($size === false || $handle === false) plinth_refuse('wordpress_package_not_found', "$shown cannot be read", ['path' => $shown]);
    if ($size < 22) $invalid('too short');
    $tailLength = min($size, 65557);
    fseek($handle, $size - $tailLength);
    $tail = fread($handle, $tailLength);
    $at = strrpos($tail, "PK\x05\x06");
    if ($at === false || strlen($tail) < $at + 22) $invalid('no end of central directory');
    $end = unpack('vdisk/vcdDisk/vdiskEntries/ventries/Vsize/Voffset', substr($tail, $at + 4, 16));
    if ($end['entries'] === 0xFFFF || $end['offset'] === 0xFFFFFFFF || $end['size'] === 0xFFFFFFFF) $invalid('ZIP64 archives are not supported');
    if ($end['disk'] !== 0 || $end['entries'] === 0) $invalid('empty or split archive');
    if ($end['offset'] + $end['size'] > $size) $invalid('truncated');
    fseek($handle, $end['offset']);
    $directory = $end['size'] > 0 ? fread($handle, $end['size']) : '';
    fclose($handle);
    $position = 0;
    $tops = [];
    $topIsFolder = false;
    for ($index = 0; $index < $end['entries']; $index++) {
        if (substr($directory, $position, 4) !== "PK\x01\x02" || strlen($directory) < $position + 46) $invalid('corrupt central directory');
        $header = unpack('vmadeBy/vneeded/vflags/vmethod/vtime/vdate/Vcrc/Vcompressed/Vsize/vnameLength/vextraLength/vcommentLength/vdisk/vinternal/Vexternal/Voffset', substr($directory, $position + 4, 42));
        $name = substr($directory, $position + 46, $header['nameLength']);
        $position += 46 + $header['nameLength'] + $header['extraLength'] + $header['commentLength'];
        $unsafe = fn (string $reason, string $why) => plinth_refuse('unsafe_package_entry', "$shown holds an entry that $why: " . json_encode($name, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), ['path' => $shown, 'entry' => $name, 'reason' => $reason]);
        if ($header['flags'] & 1) $invalid('encrypted entries');
        if (strpos($name, "\0") !== false || $name === '') $unsafe('name', 'has no usable name');
        $normal = str_replace('\\', '/', $name);
        if ($normal[0] === '/' || preg_match('/^[A-Za-z]:/', $normal)) $unsafe('absolute', 'is an absolute path');
        if (in_array('..', explode('/', $normal), true)) $unsafe('climbs', 'climbs out with ..');
        $mode = ($header['external'] >> 16) & 0xF000;
        if (($header['madeBy'] >> 8) === 3 && $mode === 0xA000) $unsafe('link', 'is a symbolic link');
        // WordPress's unzip skips macOS's resource forks; every other entry lands under the package's folder.
        if (strpos($normal, '__MACOSX/') === 0) continue;
        $parts = explode('/', $normal, 2);
        $tops[$parts[0]] = true;
        if (isset($parts[1])) $topIsFolder = true;
    }
    // The folder the package lands in, as WordPress's upgrader names it: the archive's one top folder, else (files
    // at the top) the zip's own name. It becomes the plugin's or theme's slug, which every later operation names: one
    // that is not a slug (`dotted.plugin`, `with space`, `..foo`) would install and then never be managed.
    $folder = count($tops) === 1 && $topIsFolder ? (string) array_key_first($tops) : basename(basename($path, '.tmp'), '.zip');
    if (!preg_match('/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/', $folder))
        plinth_refuse('invalid_wordpress_package', "$shown would install into the folder " . json_encode($folder, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE) . ', which is not a slug: letters, digits, - and _, starting with a letter or digit', ['path' => $shown, 'folder' => $folder, 'reason' => 'folder']);
}

/** Installs a plugin or theme from the checked zip with WordPress's own upgrader (never over an existing one). */
function plinth_install(string $kind, string $path, string $shown)
{
    plinth_check_zip($path, $shown);
    require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';
    WP_Filesystem();
    $skin = new WP_Ajax_Upgrader_Skin();
    $upgrader = $kind === 'plugin' ? new Plugin_Upgrader($skin) : new Theme_Upgrader($skin);
    ob_start();
    $result = $upgrader->install($path);
    ob_end_clean();
    $error = is_wp_error($result) ? $result : ($result ? null : $skin->get_errors());
    if ($error && $error->has_errors()) {
        $code = $error->get_error_code();
        $message = wp_strip_all_tags($error->get_error_message());
        if ($code === 'folder_exists') plinth_refuse("wordpress_{$kind}_exists", "The $kind in $shown is installed already: delete it first", ['path' => $shown]);
        if (strpos((string) $code, 'incompatible_archive') === 0 || $code === 'empty_archive') plinth_refuse('invalid_wordpress_package', "$shown is not a WordPress $kind: $message", ['path' => $shown]);
        plinth_refuse('wordpress_error', "WordPress could not install $shown: $message", ['path' => $shown]);
    }
    if ($kind === 'plugin') {
        $file = $upgrader->plugin_info();
        wp_clean_plugins_cache(false);
        $plugins = get_plugins();
        if (!$file || !isset($plugins[$file])) plinth_refuse('wordpress_error', "WordPress installed $shown but cannot find the plugin");
        return plinth_plugin_item($file, $plugins[$file]);
    }
    $theme = $upgrader->theme_info();
    if (!$theme) plinth_refuse('wordpress_error', "WordPress installed $shown but cannot find the theme");
    return plinth_theme_item($theme);
}

/** `$value` with every `$from` replaced, inside PHP-serialized data too (re-serialized so its lengths stay true). */
function plinth_replace($value, string $from, string $to, int &$count)
{
    if (is_string($value)) {
        if (is_serialized($value, false)) {
            $data = @unserialize($value, ['allowed_classes' => ['stdClass']]);
            if ($data !== false || $value === 'b:0;') {
                $before = $count;
                $replaced = plinth_replace_deep($data, $from, $to, $count);
                return $count === $before ? $value : serialize($replaced);
            }
        }
        $found = 0;
        $replaced = str_replace($from, $to, $value, $found);
        $count += $found;
        return $replaced;
    }
    return $value;
}

function plinth_replace_deep($data, string $from, string $to, int &$count)
{
    if (is_string($data)) return plinth_replace($data, $from, $to, $count);
    if (is_array($data)) {
        foreach ($data as $key => $item) $data[$key] = plinth_replace_deep($item, $from, $to, $count);
        return $data;
    }
    if ($data instanceof stdClass) {
        foreach (get_object_vars($data) as $key => $item) $data->$key = plinth_replace_deep($item, $from, $to, $count);
    }
    // Objects of other classes are kept as they are (not loaded: their code never runs here).
    return $data;
}

/** Replaces `$from` by `$to` in every text column of the site's tables (posts' `guid` excepted), or counts only. */
function plinth_search_replace(string $from, string $to, bool $dryRun): array
{
    global $wpdb;
    $tables = [];
    $total = 0;
    $names = $wpdb->get_col($wpdb->prepare('SHOW TABLES LIKE %s', $wpdb->esc_like($wpdb->base_prefix) . '%'));
    foreach ($names as $table) {
        $columns = $wpdb->get_results("SHOW COLUMNS FROM `$table`", ARRAY_A);
        $keys = array_column(array_filter($columns, fn ($column) => $column['Key'] === 'PRI'), 'Field');
        if (!$keys) continue;
        $count = 0;
        foreach ($columns as $column) {
            $name = $column['Field'];
            if (!preg_match('/char|text|blob/i', $column['Type']) || in_array($name, $keys, true)) continue;
            if ($table === $wpdb->posts && $name === 'guid') continue;
            $select = implode(', ', array_map(fn ($key) => "`$key`", $keys));
            $rows = $wpdb->get_results($wpdb->prepare("SELECT $select, `$name` AS plinth_value FROM `$table` WHERE `$name` LIKE %s", '%' . $wpdb->esc_like($from) . '%'), ARRAY_A);
            foreach ($rows as $row) {
                $found = 0;
                $replaced = plinth_replace($row['plinth_value'], $from, $to, $found);
                if ($found === 0 || $replaced === $row['plinth_value']) continue;
                $count += $found;
                if (!$dryRun) {
                    $where = array_intersect_key($row, array_flip($keys));
                    if ($wpdb->update($table, [$name => $replaced], $where) === false) plinth_refuse('wordpress_error', "Updating $table failed: " . $wpdb->last_error);
                }
            }
        }
        if ($count > 0) $tables[] = ['name' => $table, 'replacements' => $count];
        $total += $count;
    }
    if (!$dryRun) wp_cache_flush();
    return ['from' => $from, 'to' => $to, 'dryRun' => $dryRun, 'replacements' => $total, 'tables' => $tables];
}

$plinth_op = $plinth_in['op'];
$slug = (string) ($plinth_in['slug'] ?? '');
switch ($plinth_op) {
    case 'core':
        plinth_ok(plinth_core());
    case 'maintenance':
        $file = ABSPATH . '.maintenance';
        if ($plinth_in['enabled']) {
            // Evaluated at each request: never older than WordPress's 10 minutes, so on until switched off.
            $ok = file_put_contents($file, "<?php\n// Maintenance mode, switched on in the Plinth panel: on until switched off there (or this file deleted).\n\$upgrading = time();\n");
            if ($ok === false) plinth_refuse('wordpress_error', 'Writing /htdocs/.maintenance failed');
        } elseif (is_file($file) && !unlink($file)) {
            plinth_refuse('wordpress_error', 'Deleting /htdocs/.maintenance failed');
        }
        plinth_ok(plinth_core());
    case 'plugins.list':
        wp_clean_plugins_cache(false);
        $items = [];
        foreach (get_plugins() as $file => $data) $items[] = plinth_plugin_item($file, $data);
        plinth_ok($items);
    case 'plugins.activate':
        [$file] = plinth_plugin($slug);
        ob_start();
        try {
            $result = activate_plugin($file, '', false, false);
        } catch (Throwable $error) {
            $result = new WP_Error('plugin_failed', get_class($error) . ': ' . $error->getMessage());
        }
        ob_end_clean();
        if (is_wp_error($result)) plinth_refuse('wordpress_activation_failed', "WordPress did not activate $slug: " . wp_strip_all_tags($result->get_error_message()), ['slug' => $slug]);
        [$file, $data] = plinth_plugin($slug);
        plinth_ok(plinth_plugin_item($file, $data));
    case 'plugins.deactivate':
        [$file] = plinth_plugin($slug);
        if (is_plugin_active($file)) {
            // Loaded now so its deactivation hook runs; a plugin that fails to load is deactivated all the same.
            ob_start();
            try {
                wp_register_plugin_realpath(WP_PLUGIN_DIR . '/' . $file);
                include_once WP_PLUGIN_DIR . '/' . $file;
            } catch (Throwable $error) {
            }
            deactivate_plugins($file, false, false);
            ob_end_clean();
        }
        [$file, $data] = plinth_plugin($slug);
        plinth_ok(plinth_plugin_item($file, $data));
    case 'plugins.delete':
        [$file, $data] = plinth_plugin($slug);
        if (is_plugin_active($file)) plinth_refuse('wordpress_plugin_active', "The plugin $slug is active: deactivate it first", ['slug' => $slug]);
        ob_start();
        $result = delete_plugins([$file]);
        ob_end_clean();
        if ($result !== true) plinth_refuse('wordpress_error', "WordPress did not delete $slug" . (is_wp_error($result) ? ': ' . $result->get_error_message() : ''), ['slug' => $slug]);
        plinth_ok(plinth_plugin_item($file, $data));
    case 'plugins.install':
        plinth_ok(plinth_install('plugin', (string) $plinth_in['path'], (string) $plinth_in['shownPath']));
    case 'themes.list':
        wp_clean_themes_cache(false);
        plinth_ok(array_values(array_map('plinth_theme_item', wp_get_themes())));
    case 'themes.activate':
        $theme = plinth_theme($slug);
        if ($theme->errors() || !$theme->is_allowed()) plinth_refuse('wordpress_activation_failed', "WordPress did not activate $slug: " . ($theme->errors() ? $theme->errors()->get_error_message() : 'not allowed'), ['slug' => $slug]);
        switch_theme($theme->get_stylesheet());
        plinth_ok(plinth_theme_item(plinth_theme($slug)));
    case 'themes.delete':
        $theme = plinth_theme($slug);
        if ($slug === get_stylesheet() || $slug === get_template()) plinth_refuse('wordpress_theme_active', "The theme $slug is in use: activate another first", ['slug' => $slug]);
        $item = plinth_theme_item($theme);
        ob_start();
        $result = delete_theme($slug);
        ob_end_clean();
        if ($result !== true) plinth_refuse('wordpress_error', "WordPress did not delete $slug" . (is_wp_error($result) ? ': ' . $result->get_error_message() : ''), ['slug' => $slug]);
        plinth_ok($item);
    case 'themes.install':
        plinth_ok(plinth_install('theme', (string) $plinth_in['path'], (string) $plinth_in['shownPath']));
    case 'users.list':
        global $wpdb;
        // Keyset: the users after the last one the panel showed, by id.
        $ids = $wpdb->get_col($wpdb->prepare("SELECT ID FROM $wpdb->users WHERE ID > %d ORDER BY ID LIMIT %d", (int) $plinth_in['after'], (int) $plinth_in['limit']));
        $users = $ids ? get_users(['include' => array_map('intval', $ids), 'orderby' => 'ID', 'order' => 'ASC', 'blog_id' => 0]) : [];
        plinth_ok(array_map('plinth_user_item', $users));
    case 'users.create':
        $role = (string) $plinth_in['role'];
        if (!wp_roles()->is_role($role)) plinth_refuse('unknown_wordpress_role', "The site has no role $role", ['role' => $role, 'roles' => array_keys(wp_roles()->roles)]);
        $id = wp_insert_user(['user_login' => (string) $plinth_in['login'], 'user_email' => (string) $plinth_in['email'], 'user_pass' => (string) $plinth_in['password'], 'role' => $role, 'display_name' => (string) ($plinth_in['displayName'] ?? $plinth_in['login'])]);
        if (is_wp_error($id)) {
            $code = $id->get_error_code();
            $taken = in_array($code, ['existing_user_login', 'existing_user_email'], true);
            plinth_refuse($taken ? 'wordpress_user_exists' : 'wordpress_error', wp_strip_all_tags($id->get_error_message()), ['reason' => $code]);
        }
        plinth_ok(plinth_user_item(plinth_user((int) $id)));
    case 'users.password':
        $user = plinth_user((int) $plinth_in['userId']);
        wp_set_password((string) $plinth_in['password'], $user->ID);
        // Whoever was logged in as the user is logged out: the reset is for a password that leaked or was lost.
        WP_Session_Tokens::get_instance($user->ID)->destroy_all();
        plinth_ok(plinth_user_item(plinth_user((int) $user->ID)));
    case 'search-replace':
        plinth_ok(plinth_search_replace((string) $plinth_in['from'], (string) $plinth_in['to'], (bool) $plinth_in['dryRun']));
    case 'search-engines':
        // WordPress's "Discourage search engines" (Settings, Reading): `noindex` in every page and a closed robots.txt.
        if (is_bool($plinth_in['visible'] ?? null)) update_option('blog_public', $plinth_in['visible'] ? '1' : '0');
        plinth_ok(['visible' => (string) get_option('blog_public') !== '0']);
}
plinth_refuse('unknown_wordpress_operation', 'The runner has no operation ' . json_encode($plinth_op));
