DROP TABLE saved_views;
