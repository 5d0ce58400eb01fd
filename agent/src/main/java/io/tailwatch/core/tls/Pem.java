package io.tailwatch.core.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM certificates and private keys in the forms Go's crypto/tls reads (PKCS#8, PKCS#1 and SEC1 keys),
 * through BouncyCastle's PEM parser; the JDK's own providers build the key objects. Messages name the
 * file and what is wrong, never key material.
 */
public final class Pem {
    /** A PEM file is small; anything bigger is not a certificate or key. */
    private static final long MAX_BYTES = 1 << 20;
    private static final int MAX_CERTS = 100;

    private Pem() {
    }

    public static List<X509Certificate> certificates(Path file) throws IOException {
        return certificates(read(file), file.toString());
    }

    public static List<X509Certificate> certificates(String pem, String what) throws IOException {
        List<X509Certificate> out = new ArrayList<>();
        JcaX509CertificateConverter conv = new JcaX509CertificateConverter();
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            Object o;
            while ((o = p.readObject()) != null) {
                if (o instanceof X509CertificateHolder h) {
                    if (out.size() >= MAX_CERTS) {
                        throw new IOException(what + ": more than " + MAX_CERTS + " certificates");
                    }
                    out.add(conv.getCertificate(h));
                }
            }
        } catch (CertificateException e) {
            throw new IOException(what + ": not a valid certificate: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new IOException(what + ": not valid PEM: " + e.getClass().getSimpleName());
        }
        if (out.isEmpty()) {
            throw new IOException(what + ": no PEM certificate (BEGIN CERTIFICATE) found");
        }
        return out;
    }

    public static PrivateKey privateKey(Path file) throws IOException {
        return privateKey(read(file), file.toString());
    }

    public static PrivateKey privateKey(String pem, String what) throws IOException {
        JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
        try (Reader r = new StringReader(pem); PEMParser p = new PEMParser(r)) {
            Object o;
            while ((o = p.readObject()) != null) {
                if (o instanceof PEMKeyPair kp) {
                    return conv.getKeyPair(kp).getPrivate();
                }
                if (o instanceof PrivateKeyInfo info) {
                    return conv.getPrivateKey(info);
                }
                if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new IOException(what + ": the private key is encrypted; give an unencrypted key file (as Go's crypto/tls needs)");
                }
            }
        } catch (org.bouncycastle.openssl.PEMException e) {
            throw new IOException(what + ": not a usable private key: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new IOException(what + ": not valid PEM: " + e.getClass().getSimpleName());
        }
        throw new IOException(what + ": no PEM private key (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY) found");
    }

    /** Null when the key belongs to the certificate; else why not (checked by a signature, as Go does by comparison). */
    public static String mismatch(X509Certificate cert, PrivateKey key) {
        PublicKey pub = cert.getPublicKey();
        if (!pub.getAlgorithm().equals(key.getAlgorithm())) {
            return "the private key (" + key.getAlgorithm() + ") does not match the certificate (" + pub.getAlgorithm() + ")";
        }
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (alg == null) {
            return "unsupported key type " + key.getAlgorithm() + " (use RSA, ECDSA or Ed25519)";
        }
        try {
            byte[] probe = "tailwatch key check".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(alg);
            sign.initSign(key);
            sign.update(probe);
            byte[] sig = sign.sign();
            Signature verify = Signature.getInstance(alg);
            verify.initVerify(pub);
            verify.update(probe);
            return verify.verify(sig) ? null : "the private key does not match the certificate's public key";
        } catch (java.security.GeneralSecurityException e) {
            return "cannot check the key against the certificate: " + e.getMessage();
        }
    }

    private static String read(Path file) throws IOException {
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException(file + ": larger than " + MAX_BYTES + " bytes");
            }
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException(file + ": no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IOException(file + ": permission denied");
        } catch (java.nio.charset.MalformedInputException e) {
            throw new IOException(file + ": not a PEM text file");
        }
    }
}
