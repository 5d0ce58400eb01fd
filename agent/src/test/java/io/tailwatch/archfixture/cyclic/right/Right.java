package io.tailwatch.archfixture.cyclic.right;

import io.tailwatch.archfixture.cyclic.left.Left;

/** Test fixture: imports {@link Left}, which imports this class back (a package cycle on purpose). */
public final class Right {
    public Left partner() {
        return new Left();
    }
}
