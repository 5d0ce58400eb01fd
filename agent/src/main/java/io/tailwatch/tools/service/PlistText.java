package io.tailwatch.tools.service;

import com.dd.plist.NSDictionary;
import com.dd.plist.NSObject;
import com.dd.plist.PropertyListParser;
import java.nio.charset.StandardCharsets;

/** XML property lists in and out, through dd-plist (the same format launchd and plutil read). */
public final class PlistText {
    private PlistText() {
    }

    public static String xml(NSDictionary dict) {
        String s = dict.toXMLPropertyList();
        return s.endsWith("\n") ? s : s + "\n";
    }

    /** Parses an XML (or binary) plist whose root is a dictionary. */
    public static NSDictionary parse(String text) {
        try {
            NSObject o = PropertyListParser.parse(text.getBytes(StandardCharsets.UTF_8));
            if (o instanceof NSDictionary d) {
                return d;
            }
            throw new IllegalArgumentException("plist root is " + o.getClass().getSimpleName() + ", not a dictionary");
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalArgumentException("not a valid plist: " + e.getMessage(), e);
        }
    }
}
