package main

type Event struct {
	UserID    string `json:"user_id"`
	Timestamp int64  `json:"timestamp"`
}
