package io.tailwatch.archfixture.cyclic.left;

import io.tailwatch.archfixture.cyclic.right.Right;

/** Test fixture: imports {@link Right}, which imports this class back (a package cycle on purpose). */
public final class Left {
    public Right partner() {
        return new Right();
    }
}
