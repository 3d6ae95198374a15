package memory

// This is a test-only package. This ignore file is intentional.
