use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid argon2 parameters: {0}")]
    Params(argon2::Error),
    #[error("password hash: {0}")]
    Hash(argon2::password_hash::Error),
}

pub fn hash_password(password: &str, salt: &SaltString) -> Result<String, Error> {
    let params = Params::new(65536, 3, 4, None).map_err(Error::Params)?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
    let hash = argon.hash_password(password.as_bytes(), salt).map_err(Error::Hash)?;
    Ok(hash.to_string())
}

/// Verifies against the parameters stored in the PHC string, not the current defaults.
pub fn verify_password(stored: &str, password: &str) -> Result<bool, Error> {
    let parsed = PasswordHash::new(stored).map_err(Error::Hash)?;
    Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_old_params() {
        let salt = SaltString::from_b64("c2FsdHNhbHRzYWx0").unwrap();
        let old = Argon2::default().hash_password(b"hunter2", &salt).unwrap().to_string();
        assert!(verify_password(&old, "hunter2").unwrap());
    }
}
