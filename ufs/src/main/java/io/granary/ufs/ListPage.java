package io.granary.ufs;

import java.util.List;

/**
 * One page of a listing. Both lists are in key order; together they hold at most the requested limit.
 *
 * @param objects        objects on this page
 * @param commonPrefixes "directories" ({@code dir/}) rolled up by the delimiter; empty for flat listings
 * @param nextCursor     pass back to get the next page; null when this is the last page
 */
public record ListPage(List<ObjectInfo> objects, List<String> commonPrefixes, String nextCursor) {

    public ListPage {
        objects = List.copyOf(objects);
        commonPrefixes = List.copyOf(commonPrefixes);
    }
}
