import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secret variables are needed in clear by the runner, so they are stored
 * encrypted (AES-256-GCM), never hashed. The key comes from SECRETS_KEY, or,
 * when that is unset, from INTERNAL_TOKEN_SECRET through HKDF with a label of
 * its own (so the two uses never share a key). Each ciphertext is bound to
 * where it belongs (`aad`: project, environment, name): a sealed value copied
 * to another variable does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyMaterial: string) {
    this.key = Buffer.from(hkdfSync('sha256', keyMaterial, 'assay-test-case', 'assay/project-secrets/v1', 32));
  }

  seal(plain: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  /** @throws Error when the ciphertext was altered, moved or sealed with another key. */
  open(sealed: string, aad: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** What a sealed value is bound to. */
export const secretAad = (projectId: string, environment: string, name: string) => JSON.stringify([projectId, environment, name]);
