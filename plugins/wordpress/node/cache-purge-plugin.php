<?php
/**
 * Plugin Name: Plinth page cache purge
 * Description: Tells the node which pages a content change changed (a post, its comments, the theme, menus), so its page cache drops them within a second. Managed by Plinth: written while the site's page cache is on, removed when it is off.
 */

if (!defined('ABSPATH')) {
    exit;
}

final class Plinth_Cache_Purge
{
    /** Where the node reads purge requests: the site's own tmp/ (set when Plinth writes the plugin). */
    const SPOOL = '__PLINTH_SPOOL__';

    /** @var array<string, true> */
    private static $paths = [];
    private static $all = false;
    private static $hooked = false;

    /** Asks for the pages at `$url`'s path (the node caches no query string, so the path alone). */
    public static function url($url)
    {
        if (!is_string($url) || $url === '') {
            return;
        }
        $path = wp_parse_url($url, PHP_URL_PATH);
        $path = is_string($path) && $path !== '' ? $path : '/';
        if (preg_match('#^/[\x21-\x7e]{0,2047}$#', $path)) {
            self::$paths[$path] = true;
            self::flushAtShutdown();
        }
    }

    /** Asks for every page (the theme, menus, widgets, site title: every page shows them). */
    public static function all()
    {
        self::$all = true;
        self::flushAtShutdown();
    }

    /** A post changed: its page, the front page, the feeds, its archives. */
    public static function post($post)
    {
        $post = get_post($post);
        if (!$post || wp_is_post_revision($post) || wp_is_post_autosave($post)) {
            return;
        }
        // A block theme's templates, parts, styles, navigation and reusable blocks show on every page.
        if (in_array($post->post_type, ['wp_template', 'wp_template_part', 'wp_global_styles', 'wp_navigation', 'wp_block'], true)) {
            self::all();
            return;
        }
        $type = get_post_type_object($post->post_type);
        if (!$type || !$type->public) {
            return;
        }
        self::url(get_permalink($post));
        self::url(home_url('/'));
        self::url(get_feed_link());
        self::url(get_feed_link('comments_rss2'));
        self::url(get_post_comments_feed_link($post->ID));
        $posts_page = (int) get_option('page_for_posts');
        if ($posts_page > 0) {
            self::url(get_permalink($posts_page));
        }
        self::url(get_author_posts_url((int) $post->post_author));
        foreach (get_object_taxonomies($post->post_type) as $taxonomy) {
            $terms = get_the_terms($post, $taxonomy);
            if (is_array($terms)) {
                foreach ($terms as $term) {
                    $link = get_term_link($term);
                    if (is_string($link)) {
                        self::url($link);
                    }
                }
            }
        }
    }

    /** A comment changed: its post's pages. */
    public static function comment($comment_id)
    {
        $comment = get_comment($comment_id);
        if ($comment) {
            self::post((int) $comment->comment_post_ID);
        }
    }

    private static function flushAtShutdown()
    {
        if (!self::$hooked) {
            self::$hooked = true;
            // Early at shutdown: the request's changes are written, and the node purges while the answer goes out.
            add_action('shutdown', [self::class, 'flush'], 0);
        }
    }

    /** Writes the request for the node: a file renamed into place whole, one path a line or `*`. */
    public static function flush()
    {
        if (!self::$all && !self::$paths) {
            return;
        }
        $lines = self::$all ? ['*'] : array_keys(self::$paths);
        self::$paths = [];
        self::$all = false;
        if (!is_dir(self::SPOOL) && !@mkdir(self::SPOOL, 0700, true)) {
            return;
        }
        $name = sprintf('%.6F-%s', microtime(true), bin2hex(random_bytes(6)));
        $temporary = self::SPOOL . '/.' . $name . '.tmp';
        if (@file_put_contents($temporary, implode("\n", $lines) . "\n") !== false) {
            @rename($temporary, self::SPOOL . '/' . $name . '.purge');
        }
    }
}

add_action('save_post', [Plinth_Cache_Purge::class, 'post']);
// Before the post leaves: its address is still the one cached.
add_action('wp_trash_post', [Plinth_Cache_Purge::class, 'post']);
add_action('before_delete_post', [Plinth_Cache_Purge::class, 'post']);
add_action('comment_post', [Plinth_Cache_Purge::class, 'comment']);
add_action('edit_comment', [Plinth_Cache_Purge::class, 'comment']);
add_action('wp_set_comment_status', [Plinth_Cache_Purge::class, 'comment']);
add_action('delete_comment', [Plinth_Cache_Purge::class, 'comment']);
foreach ([
    'switch_theme',
    'customize_save_after',
    'wp_update_nav_menu',
    'update_option_sidebars_widgets',
    'update_option_blogname',
    'update_option_blogdescription',
    'update_option_permalink_structure',
    'activated_plugin',
    'deactivated_plugin',
] as $plinth_cache_hook) {
    add_action($plinth_cache_hook, [Plinth_Cache_Purge::class, 'all']);
}
unset($plinth_cache_hook);
